/** Create a CUSTOMER account, then log in with it. */
import { useState, type SubmitEvent } from "react";
import type { components } from "@commerce/client";
import { api, outcomeOf, type Outcome } from "../api/commerce.js";
import type { Profile } from "../api/session.js";
import { useAction } from "../api/use-action.js";
import { Link, navigate, safeNext, useLocation, withQuery } from "../routing/router.js";
import { Field } from "../ui/field.js";
import { Page } from "../ui/page.js";
import { ProblemNotice } from "../ui/status.js";
import { signIn } from "./sign-in.js";

type Registration = components["schemas"]["RegisterRequest"];

/** The new account, then logging in with it. */
async function register(account: Registration): Promise<Outcome<Profile>> {
  const registered = await outcomeOf(api.POST("/api/auth/register", { body: account }));
  return registered.ok ? signIn(account.email, account.password) : registered;
}

export function RegisterPage() {
  const { search } = useLocation();
  const next = safeNext(search.get("next"));
  const [form, setForm] = useState({ fullName: "", email: "", phoneNo: "", password: "" });
  const { runTask, busy, problem } = useAction();
  const set =
    (name: keyof typeof form) =>
    (event: { target: { value: string } }): void => {
      setForm((current) => ({ ...current, [name]: event.target.value }));
    };

  const submit = (event: SubmitEvent): void => {
    event.preventDefault();
    const body = {
      ...form,
      fullName: form.fullName.trim(),
      email: form.email.trim(),
      phoneNo: form.phoneNo.trim(),
    };
    void runTask(() => register(body), {
      reword: (refused) =>
        refused.code === "ALREADY_EXISTS"
          ? { ...refused, title: "An account with this email already exists." }
          : refused,
      done: () => {
        navigate(next ?? "/", { replace: true });
      },
    });
  };

  return (
    <Page title="Create an account">
      <form className="stacked card narrow" onSubmit={submit}>
        {problem === undefined ? null : <ProblemNotice problem={problem} />}
        <Field
          label="Full name"
          autoComplete="name"
          required
          value={form.fullName}
          onChange={set("fullName")}
        />
        <Field
          label="Email"
          type="email"
          autoComplete="email"
          required
          value={form.email}
          onChange={set("email")}
        />
        <Field
          label="Phone number"
          type="tel"
          autoComplete="tel"
          required
          hint="7 to 15 digits, with the country code if you like: +919876543210."
          pattern="\+?[0-9]{7,15}"
          value={form.phoneNo}
          onChange={set("phoneNo")}
        />
        <Field
          label="Password"
          type="password"
          autoComplete="new-password"
          required
          minLength={8}
          hint="At least 8 characters."
          value={form.password}
          onChange={set("password")}
        />
        <button type="submit" disabled={busy}>
          {busy ? "Creating your account…" : "Create account"}
        </button>
        <p>
          Already have an account? <Link to={withQuery("/login", { next })}>Log in</Link>
        </p>
      </form>
    </Page>
  );
}
