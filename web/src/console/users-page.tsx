/** Every account, for an admin; deleting one takes a second click to confirm. */
import { useCallback, useState } from "react";
import type { components } from "@commerce/client";
import { api, outcomeOf } from "../api/commerce.js";
import type { Problem } from "../api/problem.js";
import { useSession } from "../api/session.js";
import { useResource } from "../api/use-resource.js";
import { announce } from "../ui/announcer.js";
import { humanize } from "../ui/format.js";
import { Page } from "../ui/page.js";
import { Empty, Loaded, ProblemNotice } from "../ui/status.js";

type UserSummary = components["schemas"]["UserSummary"];

export function UsersPage() {
  const load = useCallback((signal: AbortSignal) => outcomeOf(api.GET("/api/users", { signal })), []);
  const { outcome, reload } = useResource(load);
  const { session } = useSession();
  return (
    <Page title="Users">
      <Loaded outcome={outcome} what="users" retry={reload}>
        {(users) =>
          users.length === 0 ? (
            <Empty>No users.</Empty>
          ) : (
            <div className="table-wrap">
              <table>
                <caption>
                  {users.length} user{users.length === 1 ? "" : "s"}
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Email</th>
                    <th scope="col">Id</th>
                    <th scope="col">Role</th>
                    <th scope="col">
                      <span className="visually-hidden">Delete</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {users.map((user) => (
                    <UserRow
                      key={user.id}
                      user={user}
                      self={user.email === session?.profile.email}
                      onDeleted={reload}
                    />
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Loaded>
    </Page>
  );
}

function UserRow({ user, self, onDeleted }: { user: UserSummary; self: boolean; onDeleted: () => void }) {
  const [confirming, setConfirming] = useState(false);
  const [problem, setProblem] = useState<Problem | undefined>(undefined);
  const remove = async (): Promise<void> => {
    setProblem(undefined);
    const removed = await outcomeOf(
      api.DELETE("/api/users/{userId}", { params: { path: { userId: user.id } } }),
    );
    if (!removed.ok) {
      setProblem(removed.problem);
      return;
    }
    announce(`Deleted ${user.email}.`);
    onDeleted();
  };
  return (
    <tr>
      <th scope="row">
        {user.email}
        {self ? <span className="muted"> (you)</span> : null}
        {problem === undefined ? null : <ProblemNotice problem={problem} />}
      </th>
      <td>{user.id}</td>
      <td>{humanize(user.role)}</td>
      <td>
        {self ? null : confirming ? (
          <div className="actions">
            <button type="button" className="danger" onClick={() => void remove()}>
              Yes, delete {user.email}
            </button>
            <button
              type="button"
              className="secondary"
              onClick={() => {
                setConfirming(false);
              }}
            >
              Keep
            </button>
          </div>
        ) : (
          <button
            type="button"
            className="secondary"
            aria-label={`Delete ${user.email}`}
            onClick={() => {
              setConfirming(true);
            }}
          >
            Delete
          </button>
        )}
      </td>
    </tr>
  );
}
