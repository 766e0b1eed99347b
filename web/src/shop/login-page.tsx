/** Log in; then on to where the person was going (`?next=`), or the console for an admin. */
import { useState, type SubmitEvent } from "react";
import { useSession } from "../api/session.js";
import { useAction } from "../api/use-action.js";
import { Link, navigate, safeNext, useLocation, withQuery } from "../routing/router.js";
import { Field } from "../ui/field.js";
import { Page } from "../ui/page.js";
import { ProblemNotice } from "../ui/status.js";
import { signIn } from "./sign-in.js";

export function LoginPage() {
  const { search } = useLocation();
  const { expired } = useSession();
  const next = safeNext(search.get("next"));
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const { runTask, busy, problem } = useAction();

  const submit = (event: SubmitEvent): void => {
    event.preventDefault();
    void runTask(() => signIn(email.trim(), password), {
      reword: (refused) =>
        refused.status === 401 ? { ...refused, title: "The email or the password is not right." } : refused,
      done: (profile) => {
        navigate(next ?? (profile.role === "ADMIN" ? "/admin" : "/"), { replace: true });
      },
    });
  };

  return (
    <Page title="Log in">
      {expired ? (
        <p className="notice" role="status">
          Your session has ended. Log in again to continue.
        </p>
      ) : null}
      <form className="stacked card narrow" onSubmit={submit}>
        {problem === undefined ? null : <ProblemNotice problem={problem} />}
        <Field
          label="Email"
          type="email"
          autoComplete="username"
          required
          value={email}
          onChange={(event) => {
            setEmail(event.target.value);
          }}
        />
        <Field
          label="Password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(event) => {
            setPassword(event.target.value);
          }}
        />
        <button type="submit" disabled={busy}>
          {busy ? "Logging in…" : "Log in"}
        </button>
        <p>
          New here? <Link to={withQuery("/register", { next })}>Create an account</Link>
        </p>
      </form>
    </Page>
  );
}
