// The pure parts of the web toolset: which addresses a tool may fetch, HTML as text, vendors' error bodies
// (the allowed_hosts rule itself: allowed-hosts.test.ts).
import { describe, expect, it } from 'vitest';
import { plainHttpAllowed, urlRefusal } from '../../src/lib/host-allowance.js';
import { decodeBody, htmlTitle, htmlToText, isText } from '../../src/providers/web/page-text.js';
import { scrub, vendorMessage } from '../../src/providers/web/http.js';

describe('fetchable addresses', () => {
  it('refuses what no tool may fetch, and plain HTTP outside the allowance', () => {
    const open = { plainHttp: false as const };
    expect(urlRefusal('https://example.com/', open)).toBeNull();
    expect(urlRefusal('not a url', open)).toBe('"not a url" is not a URL');
    expect(urlRefusal('ftp://example.com/', open)).toBe('ftp: URLs cannot be fetched (http and https only)');
    expect(urlRefusal('https://user:pw@example.com/', open)).toBe('URLs with credentials in them cannot be fetched');
    expect(urlRefusal('http://example.com/', open)).toMatch(/plain HTTP/);
    expect(urlRefusal('http://example.com/', { plainHttp: ['example.com'] })).toBeNull();
    expect(urlRefusal('http://example.com/', { plainHttp: true, allowedHosts: [] })).toBe(
      "the host example.com is not in this run's allowed_hosts",
    );
    expect(plainHttpAllowed(['[::1]'], '[::1]')).toBe(true);
    expect(plainHttpAllowed(['localhost'], 'LOCALHOST')).toBe(true);
  });
});

describe('pages as text', () => {
  it('keeps structure and absolute links, drops markup that is not content', () => {
    const html =
      '<html><head><title> A &amp; B </title><script>x()</script></head><body><nav>menu</nav><h2>Part</h2>' +
      '<p>See <a href="../b?q=1">this</a> and <a href="#top">top</a>.</p><table><tr><th>k</th><td>v</td></tr></table></body></html>';
    const text = htmlToText(html, 'https://example.com/docs/a/');
    expect(text).toContain('Part');
    expect(text).toContain('this [https://example.com/docs/b?q=1]');
    expect(text).not.toMatch(/menu|x\(\)|#top/);
    expect(htmlTitle(html)).toBe('A & B');
  });

  it('decodes the declared charset and tells text from binary types', () => {
    expect(decodeBody(new Uint8Array([0xe9, 0x74, 0xe9]), 'text/plain; charset=ISO-8859-1')).toBe('été');
    expect(decodeBody(new TextEncoder().encode('été'), 'text/plain; charset=made-up')).toBe('été');
    for (const type of ['text/html', 'text/markdown', 'application/json', 'application/ld+json', 'application/xhtml+xml'])
      expect(isText(type), type).toBe(true);
    for (const type of ['image/png', 'application/pdf', 'application/octet-stream']) expect(isText(type), type).toBe(false);
  });
});

describe("vendors' error bodies", () => {
  it('finds the message in the shapes vendors use, and never repeats a secret', () => {
    expect(vendorMessage({ detail: { error: 'bad key' } })).toBe('bad key');
    expect(vendorMessage({ error: { message: 'quota' } })).toBe('quota');
    expect(vendorMessage({ type: 'ErrorResponse', error: { code: 'X', detail: 'nope' } })).toBe('nope');
    expect(vendorMessage({ success: false, error: 'payment' })).toBe('payment');
    expect(vendorMessage('Forbidden\n')).toBe('Forbidden');
    expect(vendorMessage({ unrelated: 1 })).toBeUndefined();
    expect(scrub('key sk-1234 rejected', ['sk-1234'])).toBe('key [redacted] rejected');
  });
});
