// `bun run seed:demo`: a demo org to click through, on the same DATA_DIR the
// service uses. Everything goes through the HTTP API (in-process, with the typed
// client of clients/typescript), so the demo data passes the same validation,
// audit and events as a client's would.
import { loadConfig } from "@/config";
import { buildApp } from "@/app";
import { closeRuntime, createRuntime } from "@/platform/bootstrap/create-runtime";
import { createCuspClient, unwrap } from "@clients/typescript";
import { REACTIONS } from "@/reactions";

const SLUG = "demo-dental";
// In process, thousands of writes as one caller: the per-client rate limits are for HTTP clients, not this script.
const config = loadConfig({ LOG_LEVEL: "warn", ...process.env, RATE_LIMITS: "off" });
// no job queue: the running service (if any) owns the queue's data directory
const rt = await createRuntime(config, { withQueue: false, reactions: REACTIONS });
const app = buildApp(rt);
const cusp = createCuspClient({ baseUrl: "http://seed", fetch: (request) => app.handle(request) });

// a small deterministic generator, so every demo looks the same
let seed = 42;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)]!;

const FIRST = [
  "Olivia",
  "Liam",
  "Emma",
  "Noah",
  "Ava",
  "Elijah",
  "Sophia",
  "James",
  "Isabella",
  "Lucas",
  "Mia",
  "Mateo",
  "Amelia",
  "Levi",
  "Harper",
  "Ethan",
  "Evelyn",
  "Aiden",
  "Abigail",
  "Wei",
  "Priya",
  "Omar",
  "Fatima",
  "Hiroshi",
  "Lucia",
  "Kwame",
  "Ingrid",
  "Diego",
  "Aisha",
  "Tomasz",
];
const LAST = [
  "Smith",
  "Johnson",
  "Williams",
  "Brown",
  "Jones",
  "Garcia",
  "Miller",
  "Davis",
  "Rodriguez",
  "Martinez",
  "Hernandez",
  "Lopez",
  "Gonzalez",
  "Wilson",
  "Anderson",
  "Thomas",
  "Taylor",
  "Moore",
  "Jackson",
  "Martin",
  "Lee",
  "Perez",
  "Thompson",
  "White",
  "Harris",
  "Chen",
  "Patel",
  "Nguyen",
  "Kim",
  "O'Brien",
];

await cusp.login(config.bootstrapAdmin.email, config.bootstrapAdmin.password);
const existing = (await unwrap(cusp.GET("/api/v1/admin/orgs", { params: { query: { page_size: 200 } } }))).items.find((o) => o.slug === SLUG);
let orgId = existing?.id;

if (!orgId) {
  const created = await unwrap(cusp.POST("/api/v1/admin/orgs", { body: { name: "Demo Dental Group", slug: SLUG, account_type: "demo", max_locations: 5 } }));
  orgId = created.id;
  const org = { params: { path: { org_id: created.id } } };
  const locations = [
    await unwrap(
      cusp.POST("/api/v1/{org_id}/locations", {
        ...org,
        body: { name: "Brooklyn Heights", timezone: "America/New_York", city: "Brooklyn", state: "NY", country: "US" },
      }),
    ),
    await unwrap(
      cusp.POST("/api/v1/{org_id}/locations", {
        ...org,
        body: { name: "Pasadena", timezone: "America/Los_Angeles", city: "Pasadena", state: "CA", country: "US" },
      }),
    ),
  ];
  const providers = [];
  for (const [abbreviation, first_name, last_name, title] of [
    ["DRK", "Dana", "Reyes", "Dr."],
    ["DRP", "Paul", "Okafor", "Dr."],
    ["HYG1", "Hana", "Sato", "RDH"],
    ["DRM", "Maria", "Lindqvist", "Dr."],
    ["HYG2", "Sam", "Brooks", "RDH"],
    ["DRT", "Tariq", "Haddad", "Dr."],
  ] as const) {
    providers.push(await unwrap(cusp.POST("/api/v1/{org_id}/providers", { ...org, body: { abbreviation, first_name, last_name, title } })));
  }
  const operatories: Record<string, { id: string }[]> = {};
  for (const loc of locations) {
    operatories[loc.id] = [];
    for (let i = 1; i <= 3; i++)
      operatories[loc.id]!.push(
        await unwrap(
          cusp.POST("/api/v1/{org_id}/schedule/operatories", { ...org, body: { location_uuid: loc.id, name: `Operatory ${i}`, abbreviation: `OP${i}` } }),
        ),
      );
  }
  const types = [];
  for (const [code, name, duration_minutes, color, requires_exam] of [
    ["EXAM", "Comprehensive exam", 60, "#2E86DE", true],
    ["PROPHY", "Cleaning", 60, "#10AC84", false],
    ["FILL", "Filling", 30, "#F79F1F", false],
    ["CROWN", "Crown prep", 90, "#8E44AD", true],
    ["EMERG", "Emergency", 30, "#EE5253", false],
  ] as const) {
    types.push(await unwrap(cusp.POST("/api/v1/{org_id}/appointment-types", { ...org, body: { code, name, duration_minutes, color, requires_exam } })));
  }
  const patients = [];
  for (let i = 0; i < 1000; i++) {
    const first = pick(FIRST);
    const last = pick(LAST);
    const loc = locations[i % 2];
    const year = 1940 + Math.floor(rand() * 80);
    const month = String(1 + Math.floor(rand() * 12)).padStart(2, "0");
    const day = String(1 + Math.floor(rand() * 28)).padStart(2, "0");
    patients.push(
      await unwrap(
        cusp.POST("/api/v1/{org_id}/patients", {
          ...org,
          body: {
            first_name: first,
            last_name: last,
            date_of_birth: `${year}-${month}-${day}`,
            chart_number: `C${String(10000 + i)}`,
            mobile_phone: `(555) ${String(100 + Math.floor(rand() * 900))}-${String(1000 + i).slice(-4)}`,
            email: `${first}.${last}.${i}@example.com`.toLowerCase().replace("'", ""),
            location_uuid: loc.id,
            primary_provider_uuid: providers[(i % 3) + (i % 2) * 3].id,
          },
        }),
      ),
    );
  }
  // a week of appointments: weekdays from next Monday, 08:00-16:00 local
  const today = Temporal.Now.plainDateISO("UTC");
  const monday = today.add({ days: (8 - today.dayOfWeek) % 7 || 7 });
  let booked = 0;
  for (let d = 0; d < 5; d++) {
    const date = monday.add({ days: d }).toString();
    for (const [li, loc] of locations.entries()) {
      for (let pi = 0; pi < 3; pi++) {
        const provider = providers[li * 3 + pi];
        let minutes = 8 * 60;
        while (minutes < 16 * 60) {
          const type = pick(types);
          const start = `${date}T${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}:00`;
          const endMin = minutes + type.duration_minutes;
          const end = `${date}T${String(Math.floor(endMin / 60)).padStart(2, "0")}:${String(endMin % 60).padStart(2, "0")}:00`;
          if (rand() < 0.8) {
            await unwrap(
              cusp.POST("/api/v1/{org_id}/appointments", {
                ...org,
                body: {
                  patient_uuid: pick(patients.filter((_, i) => i % 2 === li)).uuid,
                  appointment_type_uuid: type.uuid,
                  location_uuid: loc.id,
                  provider_uuid: provider.id,
                  operatory_uuid: operatories[loc.id]![pi]!.id,
                  scheduled_start: start,
                  scheduled_end: end,
                  override_scheduling_restriction: true,
                },
              }),
            );
            booked++;
          }
          minutes = endMin;
        }
      }
    }
  }
  console.log(
    `Created the demo org: 2 locations, ${providers.length} providers, 6 operatories, ${types.length} appointment types, ${patients.length} patients, ${booked} appointments.`,
  );
} else {
  console.log("The demo org already exists; nothing was changed.");
}

console.log(`
Log in (start the service first with: npm start):
  curl -s localhost:${config.port}/api/v1/auth/login -H 'content-type: application/json' \\
    -d '{"email":"${config.bootstrapAdmin.email}","password":"<your DPMS_ADMIN_PASSWORD${config.bootstrapAdmin.fromDefaults ? ", default admin-password" : ""}>"}'
Demo org id: ${orgId}
Then follow the booking tour in README.md with ORG=${orgId}.`);
await closeRuntime(rt);
