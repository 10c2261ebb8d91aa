import { client } from "../../app.js";
import { updateSettings } from "../../actions.js";
import { askForNotifications, notificationPermission } from "../notifications.js";
import { useSave } from "./SaveState.js";

/** A setting saved as soon as it changes (as Zulip's settings pages do). */
function Toggle({ setting, label }: { setting: string; label: string }) {
  const value = client.world.settings.value[setting] === true;
  const [save, saved] = useSave();
  return (
    <div class="setting-row">
      <label class="checkbox">
        <input
          type="checkbox"
          checked={value}
          onChange={(e) => void save(() => updateSettings({ [setting]: e.currentTarget.checked }))}
        />{" "}
        {label}
      </label>
      {saved}
    </div>
  );
}

export function DisplaySettings() {
  const settings = client.world.settings.value;
  const [save, saved] = useSave();
  return (
    <div class="form">
      <label for="settings-theme">Theme</label>
      <select
        id="settings-theme"
        value={String(settings.color_scheme)}
        onChange={(e) => void save(() => updateSettings({ color_scheme: Number(e.currentTarget.value) }))}
      >
        <option value="1">Automatic (follows the system)</option>
        <option value="3">Light</option>
        <option value="2">Dark</option>
      </select>
      {saved}
      <Toggle setting="twenty_four_hour_time" label="Use 24-hour time" />
      <Toggle setting="enter_sends" label="Enter sends a message (Shift+Enter for a new line)" />
      <Toggle
        setting="enable_drafts_synchronization"
        label="Save drafts on the server (synced to your other clients)"
      />
    </div>
  );
}

export function NotificationSettings() {
  const permission = notificationPermission.value;
  return (
    <div class="form">
      {permission === "default" && (
        <p>
          <button type="button" class="primary" onClick={() => void askForNotifications()}>
            Enable desktop notifications
          </button>
        </p>
      )}
      {permission === "denied" && (
        <p>Your browser blocks notifications from this site; allow them in the browser's site settings.</p>
      )}
      <Toggle
        setting="enable_desktop_notifications"
        label="Desktop notifications for direct messages and mentions"
      />
      <Toggle
        setting="enable_stream_desktop_notifications"
        label="Desktop notifications for every channel message"
      />
      <Toggle
        setting="enable_followed_topic_desktop_notifications"
        label="Desktop notifications for topics you follow"
      />
      <Toggle
        setting="pm_content_in_desktop_notifications"
        label="Show the text of direct messages in notifications"
      />
      <Toggle setting="wildcard_mentions_notify" label="Notify me of @all and @everyone" />
      <Toggle setting="enable_sounds" label="Play a sound" />
    </div>
  );
}
