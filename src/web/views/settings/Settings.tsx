import type { View } from "../../model/hash.js";
import { client } from "../../app.js";
import { ProfileSettings, AccountSettings } from "./AccountSettings.js";
import { DisplaySettings, NotificationSettings } from "./PreferenceSettings.js";
import { OrganizationProfile, OrganizationUsers, OrganizationChannels } from "./OrganizationSettings.js";
import { OrganizationInvitations } from "./InvitationSettings.js";

interface Section {
  id: string;
  label: string;
  view: () => preact.JSX.Element;
}

const PERSONAL: Section[] = [
  { id: "profile", label: "Profile", view: ProfileSettings },
  { id: "account-and-privacy", label: "Account and password", view: AccountSettings },
  { id: "preferences", label: "Display", view: DisplaySettings },
  { id: "notifications", label: "Notifications", view: NotificationSettings },
];

const ORGANIZATION: Section[] = [
  { id: "organization-profile", label: "Organization profile", view: OrganizationProfile },
  { id: "users", label: "Users", view: OrganizationUsers },
  { id: "invitations", label: "Invitations", view: OrganizationInvitations },
  { id: "channels", label: "Channels", view: OrganizationChannels },
];

/** Personal settings (#settings/...) and, for administrators, the organization's (#organization/...). */
export function Settings({ view }: { view: Extract<View, { kind: "settings" | "organization" }> }) {
  const admin = client.world.isAdmin.value;
  const sections = view.kind === "organization" && admin ? ORGANIZATION : PERSONAL;
  const section = sections.find((s) => s.id === view.section) ?? sections[0]!;
  const Current = section.view;
  return (
    <section class="settings-view" aria-labelledby="settings-title">
      <div class="view-header">
        <h1 id="settings-title">
          {view.kind === "organization" && admin ? "Organization settings" : "Personal settings"}
        </h1>
      </div>
      <div class="settings-layout">
        <nav aria-label="Settings sections" class="settings-nav">
          <ul>
            {PERSONAL.map((s) => (
              <li key={s.id}>
                <a
                  href={`#settings/${s.id}`}
                  aria-current={view.kind === "settings" && s === section ? "page" : undefined}
                >
                  {s.label}
                </a>
              </li>
            ))}
          </ul>
          {admin && (
            <>
              <h2>Organization</h2>
              <ul>
                {ORGANIZATION.map((s) => (
                  <li key={s.id}>
                    <a
                      href={`#organization/${s.id}`}
                      aria-current={view.kind === "organization" && s === section ? "page" : undefined}
                    >
                      {s.label}
                    </a>
                  </li>
                ))}
              </ul>
            </>
          )}
        </nav>
        <div class="settings-panel">
          <h2>{section.label}</h2>
          <Current />
        </div>
      </div>
    </section>
  );
}
