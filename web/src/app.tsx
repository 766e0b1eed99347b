/**
 * The app: the storefront for everyone, the signed-in person's pages, and the admin console
 * (loaded only when an admin opens it, so the storefront's first page stays small).
 */
import { lazy, Suspense, useEffect, type ReactNode } from "react";
import { useSession } from "./api/session.js";
import { AppHeader } from "./app-header.js";
import { matchRoute, navigate, useLocation, withQuery, type Route } from "./routing/router.js";
import { AccountPage } from "./shop/account-page.js";
import { CartPage } from "./shop/cart-page.js";
import { CatalogPage } from "./shop/catalog-page.js";
import { LoginPage } from "./shop/login-page.js";
import { NotFoundPage } from "./shop/not-found-page.js";
import { NotificationsPage } from "./shop/notifications-page.js";
import { OrderPage } from "./shop/order-page.js";
import { OrdersPage } from "./shop/orders-page.js";
import { PaymentsPage } from "./shop/payments-page.js";
import { ProductPage } from "./shop/product-page.js";
import { RegisterPage } from "./shop/register-page.js";
import { Announcer } from "./ui/announcer.js";
import { Page } from "./ui/page.js";
import { Loading } from "./ui/status.js";

const Console = lazy(() => import("./console/console.js").then(({ Console }) => ({ default: Console })));

/** A page for signed-in people only: anyone else is asked to log in first, then comes back. */
function SignedIn({ children }: { children: ReactNode }) {
  const { session } = useSession();
  const { href } = useLocation();
  useEffect(() => {
    if (session === undefined) navigate(withQuery("/login", { next: href }), { replace: true });
  }, [session, href]);
  return session === undefined ? <Loading what="the login page" /> : <>{children}</>;
}

/** The console, for admins only; the chunk is fetched only once an admin opens it. */
function AdminOnly() {
  const { session } = useSession();
  if (session?.profile.role !== "ADMIN")
    return (
      <Page title="Admins only">
        <p>The console is for admins. Log in with an admin account to open it.</p>
      </Page>
    );
  return (
    <Suspense fallback={<Loading what="the console" />}>
      <Console />
    </Suspense>
  );
}

const routes: readonly Route[] = [
  { path: "/", render: () => <CatalogPage /> },
  { path: "/products/:productId", render: ({ productId = "" }) => <ProductPage productId={productId} /> },
  { path: "/cart", render: () => <CartPage /> },
  { path: "/login", render: () => <LoginPage /> },
  { path: "/register", render: () => <RegisterPage /> },
  {
    path: "/orders",
    render: () => (
      <SignedIn>
        <OrdersPage />
      </SignedIn>
    ),
  },
  {
    path: "/orders/:orderId",
    render: ({ orderId = "" }) => (
      <SignedIn>
        <OrderPage orderId={orderId} />
      </SignedIn>
    ),
  },
  {
    path: "/payments",
    render: () => (
      <SignedIn>
        <PaymentsPage />
      </SignedIn>
    ),
  },
  {
    path: "/notifications",
    render: () => (
      <SignedIn>
        <NotificationsPage />
      </SignedIn>
    ),
  },
  {
    path: "/admin",
    render: () => (
      <SignedIn>
        <AdminOnly />
      </SignedIn>
    ),
  },
  {
    path: "/admin/:section",
    render: () => (
      <SignedIn>
        <AdminOnly />
      </SignedIn>
    ),
  },
  {
    path: "/account",
    render: () => (
      <SignedIn>
        <AccountPage />
      </SignedIn>
    ),
  },
];

export function App() {
  const { pathname, href } = useLocation();
  const { expired } = useSession();
  // The API stopped taking the token (it expired, or the account went): log in again, then back.
  useEffect(() => {
    if (expired && pathname !== "/login") navigate(withQuery("/login", { next: href }), { replace: true });
  }, [expired, pathname, href]);
  const matched = matchRoute(routes, pathname);
  return (
    <>
      <AppHeader />
      <main id="main" className="app-main">
        {/* Keyed by path: each page starts anew and takes the focus (ui/page.tsx). */}
        <div key={pathname}>
          {matched === undefined ? <NotFoundPage /> : matched.route.render(matched.params)}
        </div>
      </main>
      <Announcer />
    </>
  );
}
