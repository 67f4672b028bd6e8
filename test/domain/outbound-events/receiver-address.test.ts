/**
 * Which addresses an outbound event may go to (issue #40): public unicast only, every numeric
 * spelling of a host taken as the address it is, every IPv6 embedding of an IPv4 address refused;
 * LEADLINE_EVENTS_ALLOW_PRIVATE opens private and loopback receivers (and plain http), never
 * link-local (the cloud's metadata address), multicast, broadcast, unspecified or reserved ones.
 */
import t from 'tap'
import { receiverAddressAllowed, receiverUrl } from '../../../src/domain/outbound-events/receiver-address.ts'
import { DomainError } from '../../../src/domain/shared/decider.ts'

const PUBLIC = { allowPrivate: false }
const PRIVATE_ALLOWED = { allowPrivate: true }

function codeOf(text: string, rules = PUBLIC): string | null {
  try {
    receiverUrl(text, rules)
    return null
  } catch (error) {
    return error instanceof DomainError ? error.code : `not a DomainError: ${String(error)}`
  }
}

t.test('every spelling of an internal host is refused with receiver_not_public', async (t) => {
  const internal = [
    'https://127.0.0.1:8080/hooks', 'https://127.0.0.2/', 'https://2130706433/', 'https://0x7f.1/', 'https://0x7f000001/', 'https://127.1/', 'https://017700000001/', 'https://0177.0.0.1/',
    'https://%31%32%37.0.0.1/', 'https://127。0。0。1/', 'https://０x7f.1/',
    'https://0.0.0.0/', 'https://0/', 'https://[::]/', 'https://[::1]/', 'https://[0:0:0:0:0:0:0:1]/',
    'https://10.0.0.1/', 'https://10.255.255.255/', 'https://172.16.0.1/', 'https://172.31.255.254/', 'https://192.168.1.1/', 'https://3232235777/',
    'https://169.254.169.254/latest/meta-data/', 'https://2852039166/', 'https://[fe80::1]/', 'https://100.64.0.1/', 'https://100.127.255.254/',
    'https://224.0.0.1/', 'https://239.255.255.250/', 'https://[ff02::1]/', 'https://255.255.255.255/', 'https://240.0.0.1/', 'https://192.0.2.10/', 'https://198.18.0.1/',
    'https://[fc00::1]/', 'https://[fd12:3456::1]/',
    'https://[::ffff:127.0.0.1]/', 'https://[::ffff:7f00:1]/', 'https://[::ffff:a9fe:a9fe]/', 'https://[::ffff:10.0.0.1]/', 'https://[::127.0.0.1]/',
    'https://[64:ff9b::7f00:1]/', 'https://[::ffff:0:7f00:1]/', 'https://[2002:7f00:1::]/', 'https://[2001::1]/', 'https://[2001:db8::1]/', 'https://[100::1]/',
  ]
  for (const url of internal) t.equal(codeOf(url), 'receiver_not_public', url)
})

t.test('a public address passes; a name is left to the resolver; plain http and other schemes are refused', async (t) => {
  for (const url of ['https://93.184.215.14/hooks', 'https://8.8.8.8/', 'https://[2606:4700:4700::1111]/', 'https://[::ffff:8.8.8.8]/', 'https://crm.example.com/hooks', 'https://localhost/']) t.equal(codeOf(url), null, url)
  t.equal(codeOf('http://crm.example.com/hooks'), 'receiver_not_https')
  t.equal(codeOf('http://93.184.215.14/hooks'), 'receiver_not_https')
  for (const url of ['ftp://93.184.215.14/', 'file:///etc/passwd', 'gopher://127.0.0.1:6379/', 'not a url', '']) t.equal(codeOf(url), 'invalid_url', url)
})

t.test('LEADLINE_EVENTS_ALLOW_PRIVATE opens private and loopback receivers and plain http, never link-local, multicast or unspecified', async (t) => {
  for (const url of ['http://127.0.0.1:3001/hooks', 'http://2130706433/', 'https://[::1]/', 'http://10.0.0.5/', 'http://192.168.1.20/', 'http://100.64.0.1/', 'https://[fd00::5]/', 'http://[::ffff:10.0.0.5]/', 'http://crm.internal/']) {
    t.equal(codeOf(url, PRIVATE_ALLOWED), null, url)
  }
  for (const url of ['http://169.254.169.254/', 'http://[fe80::1]/', 'http://0.0.0.0/', 'http://224.0.0.1/', 'http://255.255.255.255/', 'http://240.0.0.1/', 'http://[64:ff9b::a00:5]/']) {
    t.equal(codeOf(url, PRIVATE_ALLOWED), 'receiver_not_public', url)
  }
})

t.test('resolved addresses: the same classes', async (t) => {
  for (const address of ['127.0.0.1', '::1', '10.1.2.3', '169.254.169.254', 'fe80::1%eth0', '::ffff:192.168.0.1', '0.0.0.0', 'fd00::1', 'not an address', '']) t.notOk(receiverAddressAllowed(address, PUBLIC), address)
  for (const address of ['93.184.215.14', '2606:4700::6810:84e5', '[2606:4700::6810:84e5]']) t.ok(receiverAddressAllowed(address, PUBLIC), address)
})
