import { signal } from "@preact/signals";
import { client } from "../app.js";
import { navigate } from "../router.js";
import { Avatar, presenceOf } from "./Avatar.js";
import { UserStatus } from "./UserStatus.js";
import { dmHash } from "./LeftSidebar.js";
import { Modal } from "./Modal.js";

const shown = signal<number | null>(null);

export function openProfile(userId: number): void {
  shown.value = userId;
}

const ROLE_NAMES: Record<number, string> = {
  100: "Owner",
  200: "Administrator",
  300: "Moderator",
  400: "Member",
  600: "Guest",
};

/** A person's card: picture, name, role, status, local time, and a way to message them. */
export function ProfileCard() {
  const userId = shown.value;
  if (userId === null) return null;
  const user = client.world.users.value.get(userId);
  if (!user) return null;
  const status = client.world.statuses.value.get(userId);
  const presence = presenceOf(userId);
  const close = () => (shown.value = null);
  let localTime = "";
  try {
    if (user.timezone) {
      localTime = new Intl.DateTimeFormat(undefined, {
        hour: "numeric",
        minute: "2-digit",
        timeZone: user.timezone,
        hour12: !client.world.settings.value.twenty_four_hour_time,
      }).format(new Date());
    }
  } catch {
    localTime = "";
  }
  return (
    <Modal title={user.full_name} onClose={close}>
      <div class="profile-card">
        <Avatar userId={userId} size={96} />
        <dl>
          <dt>Email</dt>
          <dd>{user.delivery_email ?? user.email}</dd>
          <dt>Role</dt>
          <dd>{user.is_bot ? "Bot" : (ROLE_NAMES[user.role] ?? "Member")}</dd>
          <dt>Status</dt>
          <dd>
            {presence === "active" ? "Active" : presence === "idle" ? "Idle" : "Offline"}
            {(status?.status_text || status?.emoji_name) && " · "}
            <UserStatus status={status} />
          </dd>
          {localTime && (
            <>
              <dt>Local time</dt>
              <dd>{localTime}</dd>
            </>
          )}
          {!user.is_active && (
            <>
              <dt>Account</dt>
              <dd>Deactivated</dd>
            </>
          )}
        </dl>
        {user.is_active && userId !== client.myUserId && (
          <button
            type="button"
            class="primary"
            onClick={() => {
              close();
              navigate(dmHash([userId]));
            }}
          >
            Send direct message
          </button>
        )}
      </div>
    </Modal>
  );
}
