/** Every account, for an admin; deleting one takes a second click to confirm. */
import { useCallback } from "react";
import type { components } from "@commerce/client";
import { api, outcomeOf } from "../api/commerce.js";
import { useSession } from "../api/session.js";
import { useAction } from "../api/use-action.js";
import { useResource } from "../api/use-resource.js";
import { announce } from "../ui/announcer.js";
import { ConfirmDelete } from "../ui/confirm-delete.js";
import { DataTable } from "../ui/data-table.js";
import { humanize } from "../ui/format.js";
import { Page } from "../ui/page.js";
import { Empty, Loaded, ProblemNotice } from "../ui/status.js";

type UserSummary = components["schemas"]["UserSummary"];

export function UsersPage() {
  const load = useCallback((signal: AbortSignal) => outcomeOf(api.GET("/api/users", { signal })), []);
  const { outcome, reload } = useResource(load);
  const { session } = useSession();
  const removing = useAction();
  const isSelf = (user: UserSummary): boolean => user.email === session?.profile.email;

  const remove = (user: UserSummary): void => {
    void removing.run(() => api.DELETE("/api/users/{userId}", { params: { path: { userId: user.id } } }), {
      about: user.id,
      done: () => {
        announce(`Deleted ${user.email}.`);
        reload();
      },
    });
  };

  return (
    <Page title="Users">
      <Loaded outcome={outcome} what="users" retry={reload}>
        {(users) =>
          users.length === 0 ? (
            <Empty>No users.</Empty>
          ) : (
            <DataTable
              caption={`${users.length} user${users.length === 1 ? "" : "s"}`}
              rows={users}
              rowKey={(user) => user.id}
              columns={[
                {
                  header: "Email",
                  rowHeader: true,
                  cell: (user) => {
                    const problem = removing.problemAbout(user.id);
                    return (
                      <>
                        {user.email}
                        {isSelf(user) ? <span className="muted"> (you)</span> : null}
                        {problem === undefined ? null : <ProblemNotice problem={problem} />}
                      </>
                    );
                  },
                },
                { header: "Id", cell: (user) => user.id },
                { header: "Role", cell: (user) => humanize(user.role) },
                {
                  header: "Delete",
                  hideHeader: true,
                  // An admin does not delete their own account from under themselves.
                  cell: (user) =>
                    isSelf(user) ? null : (
                      <ConfirmDelete
                        name={user.email}
                        onConfirm={() => {
                          remove(user);
                        }}
                      />
                    ),
                },
              ]}
            />
          )
        }
      </Loaded>
    </Page>
  );
}
