// Readable errors: the message and the google.rpc.ErrorInfo reason of a refused call, and
// the page-wide error banner.
import { ConnectError, Code } from "@connectrpc/connect";
import { Store } from "./store";

export interface Shown {
  message: string;
  reason: string;
  at: number;
}

export const banner = new Store<Shown | null>(null);

/** google.rpc.ErrorInfo.reason (field 1) read from the detail's bytes: the reason is all we need. */
function reasonOf(bytes: Uint8Array): string {
  let i = 0;
  const varint = () => {
    let v = 0;
    let shift = 0;
    while (i < bytes.length) {
      const b = bytes[i++];
      v += (b & 0x7f) * 2 ** shift;
      if (!(b & 0x80)) break;
      shift += 7;
    }
    return v;
  };
  while (i < bytes.length) {
    const tag = varint();
    const wire = tag & 7;
    if (wire === 2) {
      const len = varint();
      if (tag >> 3 === 1) return new TextDecoder().decode(bytes.subarray(i, i + len));
      i += len;
    } else if (wire === 0) varint();
    else if (wire === 1) i += 8;
    else if (wire === 5) i += 4;
    else break;
  }
  return "";
}

export function errorReason(err: unknown): string {
  if (!(err instanceof ConnectError)) return "";
  for (const d of err.details) {
    if ("type" in d && typeof d.type === "string" && d.type.endsWith("google.rpc.ErrorInfo") && "value" in d && d.value instanceof Uint8Array) {
      return reasonOf(d.value);
    }
  }
  return "";
}

export function describe(err: unknown): string {
  if (err instanceof ConnectError) {
    const name = Code[err.code] ?? "error";
    return `${err.rawMessage || name}`;
  }
  return err instanceof Error ? err.message : String(err);
}

/** Show a refused call in the banner (not the network blips streams retry by themselves). */
export function report(err: unknown): string {
  const message = describe(err);
  const transient = err instanceof ConnectError && [Code.Unavailable, Code.Canceled, Code.DeadlineExceeded].includes(err.code);
  if (!transient) banner.set({ message, reason: errorReason(err), at: Date.now() });
  return message;
}

/** Network state for the page-wide connection badge: "online" | "offline" | "reconnecting". */
export const netState = new Store<"online" | "offline" | "reconnecting">(navigator.onLine ? "online" : "offline");
addEventListener("online", () => netState.set("online"));
addEventListener("offline", () => netState.set("offline"));
