/**
 * A browser on the payment service's pages in a test: their URLs name the public URL the service was
 * given (`PAYMENT_PUBLIC_URL`), which the test swaps for the origin its server listens at (read at each
 * request: a suite may start the server later, or another one). Redirects are not followed, so a test
 * reads where a page sends the visitor.
 */
export function paymentBrowser(publicUrl: string, origin: () => string) {
  const browse = (url: string, init?: RequestInit) => fetch(url.replace(publicUrl, origin()), { redirect: 'manual', ...init });
  return {
    browse,
    /** Posts a form as a browser does (`application/x-www-form-urlencoded`). */
    postForm: (url: string, form: Record<string, string>) =>
      browse(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form).toString(),
      }),
    /** The query parameters of a URL (where a page sent the visitor back to): the signed result fields. */
    queryOf: (location: string): Record<string, string> => Object.fromEntries(new URL(location).searchParams),
  };
}
