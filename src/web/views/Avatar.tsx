import { useState } from "preact/hooks";
import { client } from "../app.js";

/** A person's picture, or their initials on a colour of their own when there is none (or it fails to load). */
export function Avatar({ userId, size = 36, url }: { userId: number; size?: number; url?: string | null }) {
  const user = client.world.users.value.get(userId);
  // The picture that failed to load (a new one, after an upload, is tried afresh).
  const [failed, setFailed] = useState<string | null>(null);
  const [loaded, setLoaded] = useState<string | null>(null);
  // The person's current picture (a message's copy may predate a change).
  const src = user?.avatar_url ?? url ?? null;
  const name = user?.full_name ?? "?";
  const style = { width: `${size}px`, height: `${size}px` };
  const initials = name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((part) => [...part][0]!.toUpperCase())
    .join("");
  // The initials show until the picture has loaded over them: a slow or unreachable picture
  // host (Gravatar from a closed network takes many seconds to fail) never leaves a blank.
  return (
    <span
      class="avatar avatar-initials"
      aria-hidden="true"
      style={{ ...style, fontSize: `${Math.round(size * 0.4)}px` }}
      data-hue={userId % 12}
    >
      {initials}
      {src && src !== failed && (
        <img
          class={loaded === src ? "avatar-picture" : "avatar-picture loading"}
          src={src}
          alt=""
          width={size}
          height={size}
          onLoad={() => setLoaded(src)}
          onError={() => setFailed(src)}
          loading="lazy"
        />
      )}
    </span>
  );
}

/** active, idle or offline, from the person's last presence (Zulip: active within 140 s). */
export function presenceOf(userId: number): "active" | "idle" | "offline" {
  const presence = client.world.presence.value.get(userId);
  if (!presence) return "offline";
  const now = Date.now() / 1000 + client.world.presenceClockSkew;
  if (now - presence.active_timestamp < 140) return "active";
  if (now - presence.idle_timestamp < 140) return "idle";
  return "offline";
}

export function PresenceDot({ userId, id }: { userId: number; id?: string }) {
  const state = presenceOf(userId);
  const label = state === "active" ? "Active" : state === "idle" ? "Idle" : "Offline";
  return <span class={`presence presence-${state}`} id={id} role="img" aria-label={label} title={label} />;
}
