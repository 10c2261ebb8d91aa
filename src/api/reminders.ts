import { checkCreateReminder, checkDeleteReminder } from "../actions/reminders.js";
import { defineEndpoint } from "../http/endpoint.js";
import { p, pathInt } from "../params.js";
import { remindersOf } from "../queries/scheduled-messages.js";

export const getReminders = defineEndpoint({
  method: "GET",
  path: "/reminders",
  auth: "user",
  params: {},
  async handler({ app, user }) {
    return { reminders: await remindersOf(app.knex, user.id) };
  },
});

export const createReminder = defineEndpoint({
  method: "POST",
  path: "/reminders",
  auth: "user",
  params: {
    message_id: p.int(),
    scheduled_delivery_timestamp: p.int(),
    note: p.custom((raw) => raw).optional(),
  },
  async handler({ app, user, params, request }) {
    const id = await checkCreateReminder(app, user, {
      messageId: params.message_id,
      deliverAt: params.scheduled_delivery_timestamp,
      note: params.note ?? "",
      client: request.clientName,
    });
    return { reminder_id: id };
  },
});

export const deleteReminder = defineEndpoint({
  method: "DELETE",
  path: "/reminders/:reminder_id",
  auth: "user",
  params: { reminder_id: pathInt() },
  async handler({ app, user, params }) {
    await checkDeleteReminder(app, user, params.reminder_id);
    return {};
  },
});
