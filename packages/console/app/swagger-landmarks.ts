/**
 * Swagger UI renders its operations in a `<main>` of its own, and the console renders every page
 * in its `<main>`: a page must have one main landmark, so Swagger's becomes a named region
 * ("Operations"). Swagger UI's React may render that element again (when the document loads, when
 * it fails), so an observer renames each new one as it appears.
 */
export function demoteNestedMain(container: HTMLElement): () => void {
  const demote = () => {
    for (const element of container.querySelectorAll('main:not([role])')) {
      element.setAttribute('role', 'region');
      element.setAttribute('aria-label', 'Operations');
    }
  };
  demote();
  const observer = new MutationObserver(demote);
  observer.observe(container, { childList: true, subtree: true });
  return () => observer.disconnect();
}
