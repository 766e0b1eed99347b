/**
 * The app's routes live in the browser: the edge answers every page's path with index.html
 * (services/edge/src/public-site.ts), and this follows the address bar with the History API.
 * Small on purpose: paths with named parameters, links, and moving focus to each new page's
 * heading (page.tsx) so a screen reader hears where it landed.
 */
import { useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent, type ReactNode } from "react";

const changed = "commerce:navigate";

function subscribe(listener: () => void): () => void {
  window.addEventListener("popstate", listener);
  window.addEventListener(changed, listener);
  return () => {
    window.removeEventListener("popstate", listener);
    window.removeEventListener(changed, listener);
  };
}

const currentHref = (): string => `${window.location.pathname}${window.location.search}`;

export interface Location {
  readonly pathname: string;
  readonly search: URLSearchParams;
  /** Path and query, as a link back here names it. */
  readonly href: string;
}

export function useLocation(): Location {
  const href = useSyncExternalStore(subscribe, currentHref);
  const url = new URL(href, window.location.origin);
  return { pathname: url.pathname, search: url.searchParams, href };
}

/** Goes to `to` (a path of this app, with its query); `replace` keeps the history as it is. */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === currentHref()) return;
  if (options.replace === true) window.history.replaceState(null, "", to);
  else window.history.pushState(null, "", to);
  window.scrollTo(0, 0);
  window.dispatchEvent(new Event(changed));
}

/** A path with its query: `withQuery("/", { page: 2, brand: "" })` → `/?page=2`. */
export function withQuery(path: string, query: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query))
    if (value !== undefined && value !== "") search.set(name, String(value));
  const text = search.toString();
  return text === "" ? path : `${path}?${text}`;
}

/** Only a path of this app may be where a login sends the person next, never another site. */
export function safeNext(next: string | null): string | undefined {
  return next !== null && next.startsWith("/") && !next.startsWith("//") ? next : undefined;
}

type LinkProps = Omit<AnchorHTMLAttributes<HTMLAnchorElement>, "href"> & {
  readonly to: string;
  readonly children: ReactNode;
};

/** A link that stays in the app; a modified click (new tab, download) stays the browser's. */
export function Link({ to, children, onClick, ...rest }: LinkProps) {
  const follow = (event: MouseEvent<HTMLAnchorElement>): void => {
    onClick?.(event);
    if (event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  return (
    <a href={to} onClick={follow} {...rest}>
      {children}
    </a>
  );
}

export interface Route {
  /** `/products/:productId`: a `:name` segment matches one segment, given to `render`. */
  readonly path: string;
  readonly render: (params: Readonly<Record<string, string>>) => ReactNode;
}

/** The first route whose path matches `pathname`, with its parameters. */
export function matchRoute(
  routes: readonly Route[],
  pathname: string,
): { route: Route; params: Record<string, string> } | undefined {
  const segments = pathname.split("/").filter((segment) => segment !== "");
  for (const route of routes) {
    const pattern = route.path.split("/").filter((segment) => segment !== "");
    if (pattern.length !== segments.length) continue;
    const params: Record<string, string> = {};
    const matches = pattern.every((part, i) => {
      const segment = segments[i] ?? "";
      if (!part.startsWith(":")) return part === segment;
      try {
        params[part.slice(1)] = decodeURIComponent(segment);
        return true;
      } catch {
        return false;
      }
    });
    if (matches) return { route, params };
  }
  return undefined;
}
