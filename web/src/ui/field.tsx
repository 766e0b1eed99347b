/** A labelled form field: the label names the input for screen readers and takes clicks. */
import { useId, type InputHTMLAttributes } from "react";

type FieldProps = Omit<InputHTMLAttributes<HTMLInputElement>, "id"> & {
  readonly label: string;
  /** Shown under the field and read with it (aria-describedby). */
  readonly hint?: string;
};

export function Field({ label, hint, ...input }: FieldProps) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} {...input} {...(hint === undefined ? {} : { "aria-describedby": `${id}-hint` })} />
      {hint === undefined ? null : (
        <p className="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
    </div>
  );
}
