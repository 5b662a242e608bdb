// Checks that an answer or an event leaks no secret digits (the last four of
// an SSN) must not trip over ids and times that happen to hold the same
// digits: a UUIDv7 is random enough to contain "4444" now and then.
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const ISO_TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g;

/** `text` with every UUID and ISO timestamp replaced by a placeholder. */
export const withoutIdsAndTimes = (text: string) => text.replace(UUID, "<id>").replace(ISO_TIME, "<time>");
