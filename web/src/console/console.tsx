/**
 * The admin console, a chunk of its own that the browser fetches only when an admin opens it
 * (app.tsx loads it lazily): the storefront's first page does not carry it.
 */
import { Link, useLocation } from "../routing/router.js";
import { NotFoundPage } from "../shop/not-found-page.js";
import { AllNotificationsPage } from "./all-notifications-page.js";
import { DashboardPage } from "./dashboard-page.js";
import { OrdersPage } from "./orders-page.js";
import { ProductsPage } from "./products-page.js";
import { UsersPage } from "./users-page.js";

const sections = [
  { path: "/admin", label: "Dashboard", page: () => <DashboardPage /> },
  { path: "/admin/products", label: "Products", page: () => <ProductsPage /> },
  { path: "/admin/orders", label: "Orders", page: () => <OrdersPage /> },
  { path: "/admin/users", label: "Users", page: () => <UsersPage /> },
  { path: "/admin/notifications", label: "Notifications", page: () => <AllNotificationsPage /> },
] as const;

export function Console() {
  const { pathname } = useLocation();
  const current = sections.find(
    (section) =>
      section.path === pathname.replace(/\/$/, "") || (section.path === "/admin" && pathname === "/admin/"),
  );
  return (
    <div className="console">
      <nav aria-label="Console" className="console-nav">
        <ul>
          {sections.map((section) => (
            <li key={section.path}>
              <Link to={section.path} aria-current={section === current ? "page" : undefined}>
                {section.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <div className="console-page">{current === undefined ? <NotFoundPage /> : current.page()}</div>
    </div>
  );
}
