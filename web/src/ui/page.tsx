/**
 * A page of the app: its heading, which takes the focus when the page opens (a screen reader
 * says where the person is; the next Tab starts from there), and the window's title.
 */
import { useEffect, useRef, type ReactNode } from "react";

/** The page the app opened on keeps the browser's own start: focus moves on navigation only. */
let openingPage = true;

export function Page({
  title,
  actions,
  children,
}: {
  title: string;
  actions?: ReactNode;
  children: ReactNode;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · Commerce`;
  }, [title]);
  useEffect(() => {
    if (openingPage) openingPage = false;
    else heading.current?.focus();
  }, []);
  return (
    <>
      <div className="page-head">
        <h1 ref={heading} tabIndex={-1}>
          {title}
        </h1>
        {actions}
      </div>
      {children}
    </>
  );
}
