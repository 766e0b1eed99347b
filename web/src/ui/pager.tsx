/**
 * The previous and next page of a paged list, and where the reader is. A list whose API says
 * how many pages there are gives `totalPages`; one that does not gives `hasNext` (a full page).
 */
export function Pager({
  label,
  page,
  totalPages,
  hasNext,
  go,
}: {
  /** The navigation landmark's name, e.g. "Pages of products". */
  label: string;
  /** The page shown, from 0. */
  page: number;
  totalPages?: number;
  hasNext?: boolean;
  go: (page: number) => void;
}) {
  const last = totalPages === undefined ? hasNext !== true : page + 1 >= totalPages;
  return (
    <nav className="pager" aria-label={label}>
      <button
        type="button"
        disabled={page === 0}
        onClick={() => {
          go(page - 1);
        }}
      >
        Previous page
      </button>
      <span>
        Page {page + 1}
        {totalPages === undefined ? null : <> of {Math.max(1, totalPages)}</>}
      </span>
      <button
        type="button"
        disabled={last}
        onClick={() => {
          go(page + 1);
        }}
      >
        Next page
      </button>
    </nav>
  );
}
