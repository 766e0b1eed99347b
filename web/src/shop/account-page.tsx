/** The signed-in person's profile (name and phone) and their addresses: add, edit, delete. */
import { useCallback, useEffect, useRef, useState, type SubmitEvent } from "react";
import type { components } from "@commerce/client";
import { api, outcomeOf, type Answer } from "../api/commerce.js";
import { sessionStore } from "../api/session.js";
import { useAction } from "../api/use-action.js";
import { useResource } from "../api/use-resource.js";
import { announce } from "../ui/announcer.js";
import { Field } from "../ui/field.js";
import { Page } from "../ui/page.js";
import { Empty, Loaded, ProblemNotice } from "../ui/status.js";

type Profile = components["schemas"]["Profile"];
type Address = components["schemas"]["Address"];
type AddressInput = components["schemas"]["AddressInput"];

export function AccountPage() {
  const loadProfile = useCallback(
    (signal: AbortSignal) => outcomeOf(api.GET("/api/users/me", { signal })),
    [],
  );
  const profile = useResource(loadProfile);
  const loadAddresses = useCallback(
    (signal: AbortSignal) => outcomeOf(api.GET("/api/users/addresses", { signal })),
    [],
  );
  const addresses = useResource(loadAddresses);
  return (
    <Page title="My account">
      <section aria-labelledby="profile-heading">
        <h2 id="profile-heading">Profile</h2>
        <Loaded outcome={profile.outcome} what="your profile" retry={profile.reload}>
          {(me) => <ProfileForm key={`${me.fullName}|${me.phoneNo}`} profile={me} onSaved={profile.reload} />}
        </Loaded>
      </section>
      <section aria-labelledby="addresses-heading">
        <h2 id="addresses-heading">Addresses</h2>
        <Loaded outcome={addresses.outcome} what="your addresses" retry={addresses.reload}>
          {(list) => (
            <>
              {list.length === 0 ? (
                <Empty>You have no saved addresses.</Empty>
              ) : (
                <ul className="plain addresses">
                  {list.map((address) => (
                    <AddressItem key={address.id} address={address} onChanged={addresses.reload} />
                  ))}
                </ul>
              )}
              <NewAddress onAdded={addresses.reload} />
            </>
          )}
        </Loaded>
      </section>
    </Page>
  );
}

/** A button that opens the form for a new address; the form closes once the address is added. */
function NewAddress({ onAdded }: { onAdded: () => void }) {
  const [open, setOpen] = useState(false);
  if (!open)
    return (
      <button
        type="button"
        onClick={() => {
          setOpen(true);
        }}
      >
        Add an address
      </button>
    );
  return (
    <div className="card">
      <AddressForm
        legend="New address"
        submitLabel="Add address"
        onCancel={() => {
          setOpen(false);
        }}
        save={(input) => api.POST("/api/users/addresses", { body: input })}
        onSaved={() => {
          announce("Address added.");
          setOpen(false);
          onAdded();
        }}
      />
    </div>
  );
}

function ProfileForm({ profile, onSaved }: { profile: Profile; onSaved: () => void }) {
  const [fullName, setFullName] = useState(profile.fullName);
  const [phoneNo, setPhoneNo] = useState(profile.phoneNo);
  const { run, busy, problem } = useAction();
  const save = (event: SubmitEvent): void => {
    event.preventDefault();
    const body = { fullName: fullName.trim(), phoneNo: phoneNo.trim() };
    void run(() => api.PUT("/api/users/me", { body }), {
      done: () => {
        sessionStore.updateProfile({ ...profile, ...body });
        announce("Profile saved.");
        onSaved();
      },
    });
  };
  return (
    <form className="stacked card" onSubmit={save}>
      {problem === undefined ? null : <ProblemNotice problem={problem} />}
      <p>
        <span className="muted">Email:</span> {profile.email} · <span className="muted">Role:</span>{" "}
        {profile.role}
      </p>
      <Field
        label="Full name"
        autoComplete="name"
        required
        value={fullName}
        onChange={(event) => {
          setFullName(event.target.value);
        }}
      />
      <Field
        label="Phone number"
        type="tel"
        autoComplete="tel"
        required
        pattern="\+?[0-9]{7,15}"
        value={phoneNo}
        onChange={(event) => {
          setPhoneNo(event.target.value);
        }}
      />
      <button type="submit" disabled={busy}>
        {busy ? "Saving…" : "Save profile"}
      </button>
    </form>
  );
}

function AddressItem({ address, onChanged }: { address: Address; onChanged: () => void }) {
  const [editing, setEditing] = useState(false);
  // When the form closes, the focus goes back to the button that opened it, not to the page's top.
  const editButton = useRef<HTMLButtonElement>(null);
  const wasEditing = useRef(false);
  useEffect(() => {
    if (wasEditing.current && !editing) editButton.current?.focus();
    wasEditing.current = editing;
  }, [editing]);
  const [confirming, setConfirming] = useState(false);
  const { run, problem } = useAction();
  const text = `${address.street}, ${address.city}, ${address.state} ${address.pincode}`;

  const remove = (): void => {
    void run(
      () => api.DELETE("/api/users/addresses/{addressId}", { params: { path: { addressId: address.id } } }),
      {
        done: () => {
          announce("Address deleted.");
          onChanged();
        },
      },
    );
  };

  return (
    <li className="card">
      {problem === undefined ? null : <ProblemNotice problem={problem} />}
      {editing ? (
        <AddressForm
          legend={`Edit address: ${text}`}
          initial={address}
          submitLabel="Save address"
          onCancel={() => {
            setEditing(false);
          }}
          save={(input) =>
            api.PUT("/api/users/addresses/{addressId}", {
              params: { path: { addressId: address.id } },
              body: input,
            })
          }
          onSaved={() => {
            announce("Address saved.");
            setEditing(false);
            onChanged();
          }}
        />
      ) : (
        <>
          <p>{text}</p>
          <div className="actions">
            <button
              ref={editButton}
              type="button"
              className="secondary"
              aria-label={`Edit address: ${text}`}
              onClick={() => {
                setEditing(true);
              }}
            >
              Edit
            </button>
            {confirming ? (
              <>
                <button type="button" className="danger" onClick={remove}>
                  Yes, delete it
                </button>
                <button
                  type="button"
                  className="secondary"
                  onClick={() => {
                    setConfirming(false);
                  }}
                >
                  Keep it
                </button>
              </>
            ) : (
              <button
                type="button"
                className="secondary"
                aria-label={`Delete address: ${text}`}
                onClick={() => {
                  setConfirming(true);
                }}
              >
                Delete
              </button>
            )}
          </div>
        </>
      )}
    </li>
  );
}

function AddressForm({
  legend,
  initial,
  submitLabel,
  save,
  onSaved,
  onCancel,
}: {
  legend: string;
  initial?: AddressInput;
  submitLabel: string;
  /** The call that saves the address; a refusal is shown in the form. */
  save: (input: AddressInput) => Promise<Answer<unknown>>;
  onSaved: () => void;
  onCancel?: () => void;
}) {
  const [input, setInput] = useState<AddressInput>(
    initial ?? { street: "", city: "", state: "", pincode: "" },
  );
  const { run, busy, problem } = useAction();
  const set =
    (name: keyof AddressInput) =>
    (event: { target: { value: string } }): void => {
      setInput((current) => ({ ...current, [name]: event.target.value }));
    };
  const submit = (event: SubmitEvent): void => {
    event.preventDefault();
    const trimmed = {
      street: input.street.trim(),
      city: input.city.trim(),
      state: input.state.trim(),
      pincode: input.pincode.trim(),
    };
    void run(() => save(trimmed), { done: onSaved });
  };
  // The first field takes the focus when the form opens: the person asked for it.
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    form.current?.querySelector("input")?.focus();
  }, []);
  return (
    <form ref={form} className="stacked" onSubmit={submit}>
      <fieldset>
        <legend>{legend}</legend>
        {problem === undefined ? null : <ProblemNotice problem={problem} />}
        <Field
          label="Street"
          autoComplete="street-address"
          required
          value={input.street}
          onChange={set("street")}
        />
        <Field
          label="City"
          autoComplete="address-level2"
          required
          value={input.city}
          onChange={set("city")}
        />
        <Field
          label="State"
          autoComplete="address-level1"
          required
          value={input.state}
          onChange={set("state")}
        />
        <Field
          label="PIN code"
          autoComplete="postal-code"
          required
          value={input.pincode}
          onChange={set("pincode")}
        />
        <div className="actions">
          <button type="submit" disabled={busy}>
            {busy ? "Saving…" : submitLabel}
          </button>
          {onCancel === undefined ? null : (
            <button type="button" className="secondary" onClick={onCancel}>
              Cancel
            </button>
          )}
        </div>
      </fieldset>
    </form>
  );
}
