import { Link } from "../routing/router.js";
import { Page } from "../ui/page.js";

export function NotFoundPage() {
  return (
    <Page title="Page not found">
      <p>
        There is no page at this address. <Link to="/">Go to the catalog</Link>
      </p>
    </Page>
  );
}
