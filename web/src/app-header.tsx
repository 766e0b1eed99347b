/** The header on every page: the shop's name, the way to each page, who is signed in. */
import type { ReactNode } from "react";
import { sessionStore, useSession } from "./api/session.js";
import { itemCount, useCart } from "./cart/cart-store.js";
import { Link, navigate, useLocation } from "./routing/router.js";
import { useUnreadCount } from "./shop/unread-count.js";

function NavLink({ to, children }: { to: string; children: ReactNode }) {
  const { pathname } = useLocation();
  const current = to === "/" ? pathname === "/" : pathname === to || pathname.startsWith(`${to}/`);
  return (
    <Link to={to} aria-current={current ? "page" : undefined}>
      {children}
    </Link>
  );
}

export function AppHeader() {
  const { session } = useSession();
  const { pathname } = useLocation();
  const items = itemCount(useCart());
  const unread = useUnreadCount(session?.token, pathname);
  const unreadText = unread === undefined ? "" : unread >= 100 ? "99+" : String(unread);
  return (
    <header className="app-header">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <div className="header-row">
        <Link to="/" className="brand">
          Commerce
        </Link>
        <nav aria-label="Main">
          <ul>
            <li>
              <NavLink to="/">Catalog</NavLink>
            </li>
            <li>
              <NavLink to="/cart">
                Cart{" "}
                <span className="count">
                  {items}
                  <span className="visually-hidden"> item{items === 1 ? "" : "s"}</span>
                </span>
              </NavLink>
            </li>
            {session === undefined ? (
              <>
                <li>
                  <NavLink to="/login">Log in</NavLink>
                </li>
                <li>
                  <NavLink to="/register">Register</NavLink>
                </li>
              </>
            ) : (
              <>
                <li>
                  <NavLink to="/orders">My orders</NavLink>
                </li>
                <li>
                  <NavLink to="/payments">Payments</NavLink>
                </li>
                <li>
                  <NavLink to="/notifications">
                    Notifications{" "}
                    {unread === undefined || unread === 0 ? null : (
                      <span className="count">
                        {unreadText}
                        <span className="visually-hidden"> unread</span>
                      </span>
                    )}
                  </NavLink>
                </li>
                <li>
                  <NavLink to="/account">Account</NavLink>
                </li>
                {session.profile.role === "ADMIN" ? (
                  <li>
                    <NavLink to="/admin">Console</NavLink>
                  </li>
                ) : null}
                <li>
                  <button
                    type="button"
                    className="link-button"
                    onClick={() => {
                      sessionStore.signOut();
                      navigate("/");
                    }}
                  >
                    Log out <span className="visually-hidden">{session.profile.email}</span>
                  </button>
                </li>
              </>
            )}
          </ul>
        </nav>
      </div>
    </header>
  );
}
