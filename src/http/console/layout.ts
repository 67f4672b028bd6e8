/**
 * The frame around every console page: a header with the account and the sign-out button, the
 * navigation (Home: who to call now; Inbox: the leads' unread texts, counted; the spec's names: Leads, Calls, Reports, Connections → Lead webhook and Events, Setup → AI access, Phone numbers and Calendar, Settings),
 * and the page. One same-origin style sheet and one same-origin script, nothing inline, nothing
 * from elsewhere, so the Content-Security-Policy can forbid everything else.
 */
import { DateTime } from 'luxon'
import { html, type Html } from './html.ts'

export const CONSOLE_PREFIX = '/app'
// Raise it with every change to the assets: browsers keep them for a long time.
export const ASSET_VERSION = '4'

export type NavKey = 'home' | 'inbox' | 'leads' | 'calls' | 'reports' | 'lead-webhook' | 'facebook' | 'events' | 'ai-access' | 'phone-numbers' | 'calendar' | 'settings'

const NAV: ReadonlyArray<{ key: NavKey; href: string; section: string | null; label: string }> = [
  { key: 'home', href: `${CONSOLE_PREFIX}/home`, section: null, label: 'Home' },
  { key: 'inbox', href: `${CONSOLE_PREFIX}/inbox`, section: null, label: 'Inbox' },
  { key: 'leads', href: `${CONSOLE_PREFIX}/leads`, section: null, label: 'Leads' },
  { key: 'calls', href: `${CONSOLE_PREFIX}/calls`, section: null, label: 'Calls' },
  { key: 'reports', href: `${CONSOLE_PREFIX}/reports`, section: null, label: 'Reports' },
  { key: 'lead-webhook', href: `${CONSOLE_PREFIX}/connections/lead-webhook`, section: 'Connections', label: 'Lead webhook' },
  { key: 'facebook', href: `${CONSOLE_PREFIX}/connections/facebook`, section: 'Connections', label: 'Facebook Lead Ads' },
  { key: 'events', href: `${CONSOLE_PREFIX}/connections/events`, section: 'Connections', label: 'Events' },
  { key: 'ai-access', href: `${CONSOLE_PREFIX}/setup/ai-access`, section: 'Setup', label: 'AI access' },
  { key: 'phone-numbers', href: `${CONSOLE_PREFIX}/setup/phone-numbers`, section: 'Setup', label: 'Phone numbers' },
  { key: 'calendar', href: `${CONSOLE_PREFIX}/setup/calendar`, section: 'Setup', label: 'Calendar' },
  { key: 'settings', href: `${CONSOLE_PREFIX}/settings`, section: null, label: 'Settings' },
]

export interface SignedInFrame {
  readonly email: string
  readonly accountName: string
  readonly csrfToken: string
  readonly current: NavKey | null
  /** Leads with texts the owner has not read: the Inbox's count in the navigation (capped, `99+`). */
  readonly unread?: number
}

/** A navigation item's count, after its label: read with it by a screen reader ("Inbox, 3 unread"). */
function navCount(key: NavKey, frame: SignedInFrame): Html | string {
  if (key !== 'inbox' || !frame.unread) return ''
  return html` <span class="count">${frame.unread >= 100 ? '99+' : frame.unread}<span class="visually-hidden"> unread</span></span>`
}

export interface PageInput {
  readonly title: string
  readonly body: Html
  /** Null on the pages seen before signing in. */
  readonly frame: SignedInFrame | null
  /** A one-line confirmation shown above the page (role=status). */
  readonly notice?: string | null
}

/** The hidden field every console form carries its CSRF token in. */
export function csrfField(token: string): Html {
  return html`<input type="hidden" name="_csrf" value="${token}">`
}

/** A button that copies the value (or text) of element `target`, with a status line that screen readers announce. */
export function copyButton(target: string, label: string): Html {
  return html`<div class="actions"><button type="button" class="secondary" data-copy="${target}" aria-describedby="${target}-copy-status">${label}</button><span id="${target}-copy-status" class="muted" role="status"></span></div>`
}

/** A complete HTML document. */
export function renderPage(input: PageInput): string {
  const frame = input.frame
  const header = frame
    ? html`<header class="top">
  <a class="brand" href="${CONSOLE_PREFIX}/home">Leadline</a>
  <span class="account" title="Signed in as ${frame.email}">${frame.accountName}</span>
  <form method="post" action="${CONSOLE_PREFIX}/sign-out" class="sign-out">
    ${csrfField(frame.csrfToken)}
    <button type="submit" class="link-button">Sign out</button>
  </form>
</header>
<nav class="nav" aria-label="Console">
  <ul>${NAV.map((item) => html`<li><a href="${item.href}"${item.key === frame.current ? html` aria-current="page"` : ''}>${item.section ? html`<span class="section">${item.section} → </span>` : ''}${item.label}${navCount(item.key, frame)}</a></li>`)}</ul>
</nav>`
    : html`<header class="top"><span class="brand">Leadline</span></header>`
  const notice = input.notice ? html`<p class="notice" role="status">${input.notice}</p>` : ''
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${input.title} · Leadline</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${CONSOLE_PREFIX}/assets/console.css?v=${ASSET_VERSION}">
<script src="${CONSOLE_PREFIX}/assets/console.js?v=${ASSET_VERSION}" defer></script>
</head>
<body>
<a class="skip" href="#content">Skip to content</a>
${header}
<main id="content" tabindex="-1">
${notice}${input.body}
</main>
</body>
</html>
`.text
}

/**
 * A time as the account's owner reads it: in the account's zone, to the minute, the zone named: its
 * abbreviation where it has one (`2026-03-10 11:00 EDT`), else its IANA name (`2026-03-10 16:00 Europe/Berlin`).
 */
export function formatTime(iso: string | null | undefined, zone: string): string {
  if (!iso) return ''
  const time = DateTime.fromISO(iso, { zone }).setLocale('en-US')
  if (!time.isValid) return iso
  const abbreviation = time.toFormat('ZZZZ')
  return `${time.toFormat('yyyy-LL-dd HH:mm')} ${/^[A-Z]{2,5}$/.test(abbreviation) ? abbreviation : time.zoneName}`
}

// An ISO-8601 instant inside a sentence (event summaries and refusal messages carry them in UTC).
const ISO_INSTANT = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})/g

/** A sentence with every ISO instant in it shown as formatTime shows it: in the account's zone, the zone named. */
export function localTimes(text: string, zone: string): string {
  return text.replace(ISO_INSTANT, (iso) => formatTime(iso, zone))
}

/** A `<time>` element: the ISO instant for machines, the account's wall clock for people. */
export function timeElement(iso: string | null | undefined, zone: string): Html | string {
  if (!iso) return '—'
  return html`<time datetime="${iso}">${formatTime(iso, zone)}</time>`
}
