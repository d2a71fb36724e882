/**
 * Where a client may send its token: `baseUrl` checked once, when the client is built. Every
 * request carries the bearer token, so it goes over TLS, or over plain HTTP only to this machine
 * (`npm start`) unless the caller says the path is private; and the URL is a base that paths
 * are added to, with nothing (a query, a fragment, credentials) that would end up elsewhere.
 */

/** `baseUrl` as the client adds paths to it (no trailing slash); a one-line `TypeError` when refused. */
export function checkBaseUrl(baseUrl: string, allowInsecureHttp = false): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    // Not the value: a swapped argument would put the token in the message.
    throw new TypeError('baseUrl must be an absolute URL, such as https://api.example.com');
  }
  if (url.username !== '' || url.password !== '') {
    throw new TypeError('baseUrl must not hold a user name or password: the token authenticates');
  }
  // `href` keeps an empty `?` or `#`, which `search` and `hash` do not show.
  if (/[?#]/.test(url.href)) {
    throw new TypeError(
      'baseUrl must not have a query or a fragment: each call adds its path and query to it',
    );
  }
  const plainHttp = url.protocol === 'http:';
  if (url.protocol !== 'https:' && !(plainHttp && (allowInsecureHttp || isLoopback(url)))) {
    const given = url.protocol + (url.host === '' ? '' : `//${url.host}`);
    throw new TypeError(
      `baseUrl must be https, or http to a loopback host (or with allowInsecureHttp), not ${given}`,
    );
  }
  return url.href.replace(/\/$/, '');
}

/** Whether a URL's host is this machine: `localhost`, 127.0.0.0/8 or `[::1]` (as URL spells them). */
function isLoopback(url: URL): boolean {
  const host = url.hostname;
  return host === 'localhost' || host === '[::1]' || /^127(?:\.\d{1,3}){3}$/.test(host);
}
