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
      detail: { summary: "A location's day: appointments, blockouts, provider hours" },
    })
    .get("/calendar/weekly", ({ ctx, query }) => weeklyCalendar(ctx, query), {
      permission: "schedule.appointments.read",
      query: WeeklyQuery,
      response: { 200: WeeklyCalendar, ...orgErrors() },
      detail: { summary: "Seven days of a location from week_start" },
    })
    .get("/calendar/monthly", ({ ctx, query }) => monthlyCalendar(ctx, query), {
      permission: "schedule.appointments.read",
      query: MonthlyQuery,
      response: { 200: MonthlyCalendar, ...orgErrors() },
      detail: { summary: "Per-day counts, scheduled production, production goals and holidays of a month" },
    })
    .get("/daily-providers", ({ ctx, query }) => dailyProviders(ctx, query), {
      permission: "schedule.read",
      query: DailyProvidersQuery,
      response: { 200: DailyProviders, ...orgErrors() },
      detail: { summary: "Providers working at a location on a date, with their hours" },
    });
