/**
 * The subset of the google.api.http path template grammar that our contract uses, checked at
 * start so an unsupported template fails loudly instead of never matching:
 *   /literal/{field}/literal   and   {field=*}   (one segment), {field=**} (the rest, last only).
 */
export type TemplateSegment =
  | { readonly kind: "literal"; readonly value: string }
  | { readonly kind: "variable"; readonly fieldPath: string; readonly rest: boolean };

export function parsePathTemplate(template: string): TemplateSegment[] {
  if (!template.startsWith("/")) throw new Error(`path template must start with "/": ${template}`);
  const parts = template.slice(1).split("/");
  return parts.map((part, index): TemplateSegment => {
    const variable = /^\{([a-z_][a-z0-9_.]*)(?:=(\*\*?))?\}$/.exec(part);
    if (variable !== null) {
      const rest = variable[2] === "**";
      if (rest && index !== parts.length - 1) throw new Error(`"**" must be the last segment: ${template}`);
      return { kind: "variable", fieldPath: variable[1] ?? "", rest };
    }
    if (part === "" || /[{}*:]/.test(part))
      throw new Error(`unsupported path template segment "${part}" in ${template}`);
    return { kind: "literal", value: part };
  });
}
