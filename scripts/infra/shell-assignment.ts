/**
 * `NAME=value` for a shell to source (`eval "$(npm run -s infra:up)"`), quoted only when the
 * value has characters the shell would interpret.
 */
export function shellAssignment(name: string, value: string): string {
  return /^[\w@%+=:,./-]*$/.test(value) ? `${name}=${value}` : `${name}='${value.replaceAll("'", `'\\''`)}'`;
}
