/**
 * Where a download comes from, by class (SPEC §12 "a place no installer lives"): a bare IP
 * address, a paste site, a link shortener, a file-sharing host or a tunnel to someone's machine.
 * These are classes of service, listed by their well-known generic domains; no campaign's host
 * is named, because a rule that knows yesterday's hosts misses tomorrow's. An honest installer
 * is served from a name its project owns, and that is only warned (`pipe-to-shell`).
 */

export type HostClass = "bare IP address" | "paste site" | "link shortener" | "file-sharing host" | "tunnel or dynamic-DNS host" | "request collector";

const PASTE_SITES = [
  "pastebin.com", "pastebin.pl", "paste.ee", "pastes.dev", "paste.rs", "hastebin.com", "ghostbin.co", "ghostbin.com",
  "rentry.co", "rentry.org", "dpaste.com", "dpaste.org", "termbin.com", "ix.io", "sprunge.us", "controlc.com",
  "justpaste.it", "privatebin.net", "paste.mozilla.org", "bpa.st", "pastie.org", "glot.io", "paste.debian.net",
  "codepad.org", "0bin.net", "katb.in", "paste2.org", "pastelink.net", "textbin.net", "telegra.ph", "notes.io",
  "paste.c-net.org", "pastebin.run", "paste.gg", "hst.sh", "paste.sh", "p.ip.fi", "clbin.com", "defuse.ca",
];

const SHORTENERS = [
  "bit.ly", "bitly.com", "tinyurl.com", "t.co", "goo.gl", "is.gd", "v.gd", "ow.ly", "buff.ly", "rebrand.ly",
  "cutt.ly", "shorturl.at", "tiny.cc", "rb.gy", "t.ly", "s.id", "bl.ink", "short.io", "shorte.st", "adf.ly",
  "lnkd.in", "qrco.de", "clck.ru", "u.to", "x.gd", "2no.co", "iplogger.org", "grabify.link", "tinu.be", "shrtco.de",
  "urlz.fr", "surl.li", "tny.im", "git.io",
];

const FILE_SHARING = [
  "transfer.sh", "file.io", "0x0.st", "catbox.moe", "mega.nz", "mega.io", "mediafire.com", "dropbox.com",
  "dropboxusercontent.com", "drive.google.com", "drive.usercontent.google.com", "onedrive.live.com", "1drv.ms",
  "anonfiles.com", "gofile.io", "wetransfer.com", "we.tl", "sendspace.com", "filebin.net", "temp.sh",
  "pixeldrain.com", "uguu.se", "files.fm", "ufile.io", "bashupload.com", "oshi.at", "tmpfiles.org",
  "cdn.discordapp.com", "media.discordapp.net", "krakenfiles.com", "workupload.com", "qu.ax", "filetransfer.io",
  "sendgb.com", "easyupload.io", "zippyshare.com", "rapidgator.net", "uploadfiles.io", "store1.gofile.io",
];

const TUNNELS = [
  "ngrok.io", "ngrok-free.app", "ngrok.app", "ngrok.dev", "trycloudflare.com", "loca.lt", "serveo.net",
  "localhost.run", "lhr.life", "duckdns.org", "no-ip.org", "no-ip.com", "ddns.net", "hopto.org", "zapto.org",
  "servehttp.com", "bore.pub", "pinggy.io", "pinggy.link", "dynu.net", "freedns.afraid.org",
];

// Services that record whatever is sent to them, for someone to collect later.
const COLLECTORS = [
  "webhook.site", "requestbin.com", "requestbin.net", "pipedream.net", "hookbin.com", "beeceptor.com", "interact.sh",
  "oast.fun", "oast.pro", "oast.live", "oast.site", "oast.online", "oast.me", "burpcollaborator.net", "canarytokens.com",
  "requestcatcher.com", "postb.in", "ptsv3.com", "webhook.cool",
];

const CLASSES: ReadonlyArray<readonly [HostClass, readonly string[]]> = [
  ["paste site", PASTE_SITES],
  ["link shortener", SHORTENERS],
  ["file-sharing host", FILE_SHARING],
  ["tunnel or dynamic-DNS host", TUNNELS],
  ["request collector", COLLECTORS],
];

const BY_DOMAIN = new Map<string, HostClass>();
for (const [cls, domains] of CLASSES) for (const d of domains) if (!BY_DOMAIN.has(d)) BY_DOMAIN.set(d, cls);

const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;
// A host written as one number (decimal or hex) is an IP address too: 3232235777, 0xcb007105.
const NUMERIC_HOST = /^(?:0x[0-9a-f]+|\d+)$/i;

/** The class of a URL's host (`host` lower-cased, without port or credentials), or null for a named host. */
export function hostClass(host: string): HostClass | null {
  const h = host.toLowerCase().replace(/\.$/, "");
  if (h.startsWith("[") || IPV4.test(h) || NUMERIC_HOST.test(h)) {
    // The loopback address is the user's own machine: a local dev server, not a remote payload.
    if (h === "[::1]" || h.startsWith("127.") || h === "0.0.0.0") return null;
    return "bare IP address";
  }
  // The host and each domain it lies under, looked up: a handful of lookups instead of a
  // comparison with every listed domain (a page of links asked this for each one).
  for (let at = 0; at !== -1; at = h.indexOf(".", at) + 1 || -1) {
    const cls = BY_DOMAIN.get(at === 0 ? h : h.slice(at));
    if (cls !== undefined) return cls;
  }
  return null;
}

/** The host of a URL or of a scheme-less `host/path`, lower-cased; null when there is none. */
export function hostOf(url: string): string | null {
  const m = /^(?:[a-z][a-z0-9+.-]*:\/\/)?(?:[^@/\s]*@)?(\[[0-9a-f:.]+\]|[^/:?#\s'"`<>)\]]+)/i.exec(url);
  return m ? m[1]!.toLowerCase() : null;
}
