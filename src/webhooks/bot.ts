// Bot detection for opens and clicks: mail scanners, security gateways and privacy proxies fetch
// images and links without a person. A hit is machine when its user agent is a known proxy or
// scanner, when it is a HEAD request, or when it comes within a few seconds of delivery.

const MACHINE_AGENTS: [RegExp, string][] = [
  [/GoogleImageProxy|ggpht\.com/i, "google_image_proxy"],
  [/YahooMailProxy/i, "yahoo_mail_proxy"],
  [/Barracuda/i, "barracuda_scanner"],
  [/Mimecast/i, "mimecast_scanner"],
  [/Proofpoint/i, "proofpoint_scanner"],
  [/SafeLinks|Microsoft ?ATP|Office365/i, "microsoft_safe_links"],
  [/HeadlessChrome|PhantomJS|python-requests|curl\/|Wget|Go-http-client|okhttp|bot\b|crawler|spider|scanner/i, "automated_agent"],
];

/** How soon after delivery a hit counts as a gateway prefetch, in seconds. */
export const PREFETCH_SECONDS = 2;

export interface MachineVerdict {
  machine: boolean;
  machine_reason: string | null;
}

export function machineVerdict(
  hit: { user_agent?: string; http_method?: string; timestamp: number },
  deliveredAt: number | null,
): MachineVerdict {
  if (hit.http_method && hit.http_method.toUpperCase() === "HEAD") return { machine: true, machine_reason: "head_request" };
  const ua = hit.user_agent ?? "";
  if (ua.trim() === "") return { machine: true, machine_reason: "no_user_agent" };
  for (const [re, reason] of MACHINE_AGENTS) if (re.test(ua)) return { machine: true, machine_reason: reason };
  if (deliveredAt !== null && hit.timestamp - deliveredAt >= 0 && hit.timestamp - deliveredAt < PREFETCH_SECONDS) {
    return { machine: true, machine_reason: "within_seconds_of_delivery" };
  }
  return { machine: false, machine_reason: null };
}
