/**
 * Where outbound events may go (issue #40): a receiver URL is `https` and its host is, or resolves
 * to, public addresses only, so an account cannot make the server post into its own network (the
 * cloud's metadata address, a database on 10.x, a port on loopback). The address classes are
 * ipaddr.js's, not ranges of our own. The WHATWG URL parser has already turned every numeric
 * spelling of an IPv4 host (`2130706433`, `0x7f.1`, `127.1`, `017700000001`) into its dotted form.
 */
import ipaddr from 'ipaddr.js'
import { DomainError } from '../shared/decider.ts'

/** What the operator allows beside public receivers (LEADLINE_EVENTS_ALLOW_PRIVATE). */
export interface ReceiverRules {
  /** Private, carrier-grade NAT, unique-local and loopback addresses, and plain `http`: a self-hosted network, tests. */
  readonly allowPrivate: boolean
}

/** The only IPv6 block handed out for the public internet (RFC 4291 §2.4); ipaddr.js calls the rest of `::/0` unicast too. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3')

/** The classes LEADLINE_EVENTS_ALLOW_PRIVATE opens; link-local (169.254.169.254, the metadata address), multicast and the rest never are. */
const PRIVATE_V4 = new Set<string>(['private', 'loopback', 'carrierGradeNat'])
const PRIVATE_V6 = new Set<string>(['uniqueLocal', 'loopback'])

/** Whether a receiver may be reached at `address` (an IPv4 or IPv6 address as a resolver returns it). */
export function receiverAddressAllowed(address: string, rules: ReceiverRules): boolean {
  const text = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address
  if (!ipaddr.isValid(text)) return false
  let parsed = ipaddr.parse(text)
  // An IPv4-mapped address (`::ffff:127.0.0.1`) is the IPv4 address it maps, on the wire and here.
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address()
  const range = parsed.range()
  if (parsed.kind() === 'ipv4') return range === 'unicast' || (rules.allowPrivate && PRIVATE_V4.has(range))
  // NAT64, 6to4, Teredo and the other embeddings are ranges of their own, never `unicast`: refused whatever they embed.
  if (range === 'unicast') return parsed.match(GLOBAL_UNICAST_V6)
  return rules.allowPrivate && PRIVATE_V6.has(range)
}

/** The URL's host as an address when it is one (`[::1]` → `::1`), else null: a name to resolve. */
export function literalAddress(url: URL): string | null {
  const host = url.hostname.startsWith('[') && url.hostname.endsWith(']') ? url.hostname.slice(1, -1) : url.hostname
  return ipaddr.IPv4.isValidFourPartDecimal(host) || (host.includes(':') && ipaddr.IPv6.isValid(host)) ? host : null
}

export const NOT_PUBLIC_MESSAGE =
  'the receiver URL must reach public addresses only: its host is, or resolves to, a loopback, private, link-local, shared (100.64/10), multicast, reserved or unspecified address, or does not resolve'

/**
 * Checks what can be checked without a resolver: an absolute `https` URL (plain `http` too when
 * private receivers are allowed) whose host, when it is an address, may be reached. Refusals carry
 * stable codes: `invalid_url`, `receiver_not_https`, `receiver_not_public`.
 */
export function receiverUrl(text: string, rules: ReceiverRules): URL {
  let url: URL
  try {
    url = new URL(text.trim())
  } catch {
    throw new DomainError('invalid_url', 'the receiver URL must be an absolute https URL')
  }
  if (url.protocol === 'http:' && !rules.allowPrivate) throw new DomainError('receiver_not_https', 'the receiver URL must be https: events carry your leads\' data')
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new DomainError('invalid_url', 'the receiver URL must be an https URL')
  const literal = literalAddress(url)
  if (literal !== null && !receiverAddressAllowed(literal, rules)) throw new DomainError('receiver_not_public', NOT_PUBLIC_MESSAGE)
  return url
}
