import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { DailyCalendar, DailyProviders, DailyProvidersQuery, DailyQuery, MonthlyCalendar, MonthlyQuery, WeeklyCalendar, WeeklyQuery } from "./schemas";
import { dailyCalendar, dailyProviders, monthlyCalendar, weeklyCalendar } from "./service";

// Calendars show patients' names and appointment detail: schedule.appointments.read.
// daily-providers shows working hours only: schedule.read.
export const calendarRoutes = (rt: Runtime) =>
  new Elysia({ name: "calendar", prefix: "/api/v1/:org_id/schedule", tags: ["Scheduling"] })
    .use(guard(rt))
    .get("/calendar/daily", ({ ctx, query }) => dailyCalendar(ctx, query), {
      permission: "schedule.appointments.read",
      query: DailyQuery,
      response: { 200: DailyCalendar, ...orgErrors() },
      detail: {
        summary: "A location's day: appointments, blockouts, provider hours",
        description:
          "`day_hours` is 23 on a spring-forward day, 25 on a fall-back day, else 24. Appointments starting that local day in every status but cancelled (broken ones shown), blockouts touching the day, provider hours after overrides. `fields` picks what is sent (operatories and holiday too); an unknown key is 422.",
      },
    })
    .get("/calendar/weekly", ({ ctx, query }) => weeklyCalendar(ctx, query), {
      permission: "schedule.appointments.read",
      query: WeeklyQuery,
      response: { 200: WeeklyCalendar, ...orgErrors() },
      detail: {
        summary: "Seven days of a location from week_start",
        description: "`week_start` may be any date; `days` holds 7 day objects like the daily calendar's; `operatories`, when asked for, is sent once.",
      },
    })
    .get("/calendar/monthly", ({ ctx, query }) => monthlyCalendar(ctx, query), {
      permission: "schedule.appointments.read",
      query: MonthlyQuery,
      response: { 200: MonthlyCalendar, ...orgErrors() },
      detail: {
        summary: "Per-day counts, scheduled production, production goals and holidays of a month",
        description:
          "For every date: `day_hours`, `appointment_count` (not cancelled or broken), `counts` by status, `goal` (the providers' production goals there) and `production` (the fees of the appointments that hold time), both \"0.00\" when nothing counts, and the holiday from the org's holidays definitions. A day is the location's local date of scheduled_start.",
      },
    })
    .get("/daily-providers", ({ ctx, query }) => dailyProviders(ctx, query), {
      permission: "schedule.read",
      query: DailyProvidersQuery,
      response: { 200: DailyProviders, ...orgErrors() },
      detail: {
        summary: "Providers working at a location on a date, with their hours",
        description:
          "For each provider working at the location on `date`: the hours from their templates, or from the override that replaces them (or the day off), each block with its operatory (null: any free one), as wall-clock times in `location_timezone`. 404 for an unknown or archived location.",
      },
    });
