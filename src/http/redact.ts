/** Keeps secrets out of logs: the webhook token may arrive in the query string. */
const SECRET_PARAMS = /([?&](?:token|api_key|key)=)[^&#]*/gi

export function redactUrl(url: string): string {
  return url.replace(SECRET_PARAMS, '$1[REDACTED]')
}
