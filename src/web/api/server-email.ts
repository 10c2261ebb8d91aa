/**
 * Whether this server sends email, as its page says (meta chatd-email, set at load):
 * with email off, invitations and confirmations are written to the server's outbox/
 * instead, and the app shows the links to hand over.
 */
export const serverEmailOn = (): boolean =>
  document.querySelector<HTMLMetaElement>('meta[name="chatd-email"]')?.content !== "off";
