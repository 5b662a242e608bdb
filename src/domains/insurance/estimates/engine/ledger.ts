import type { NormalizedPlan } from "./normalize";
import type { Cents, EnginePriorProcedure, IsoDate } from "./types";

// What one plan has used, per benefit year, while a treatment plan is estimated
// in order: it starts from benefits_used and every estimated procedure draws on
// it, so a later procedure sees the deductible, maximum and frequency that the
// earlier ones left. Keyed by plan, never by carrier: two plans from one
// carrier keep separate books.

interface YearBook {
  deductibleMet: Cents;
  familyDeductibleMet: Cents;
  maxUsed: Cents;
}

export class PlanLedger {
  private readonly years = new Map<IsoDate, YearBook>();
  /** Services that count toward frequency limits: history, then covered procedures of this run. */
  readonly uses: EnginePriorProcedure[];

  constructor(private readonly plan: NormalizedPlan) {
    this.uses = plan.benefits_used.prior_procedures.map((p) => ({ ...p }));
  }

  private year(start: IsoDate): YearBook {
    let book = this.years.get(start);
    if (!book) {
      const used = this.plan.benefits_used.years.find((y) => y.start === start);
      book = {
        deductibleMet: used?.deductible_met_cents ?? 0,
        familyDeductibleMet: used?.family_deductible_met_cents ?? 0,
        maxUsed: used?.annual_max_used_cents ?? 0,
      };
      this.years.set(start, book);
    }
    return book;
  }

  /** Deductible still to meet this benefit year: the individual one, and the family one when it is lower. */
  deductibleRemaining(start: IsoDate): Cents {
    const book = this.year(start);
    let remaining = Math.max(0, this.plan.deductible_individual_cents - book.deductibleMet);
    if (this.plan.deductible_family_cents !== null) remaining = Math.min(remaining, Math.max(0, this.plan.deductible_family_cents - book.familyDeductibleMet));
    return remaining;
  }

  useDeductible(start: IsoDate, amount: Cents): void {
    const book = this.year(start);
    book.deductibleMet += amount;
    book.familyDeductibleMet += amount;
  }

  /** Annual maximum left this benefit year; null when the plan has none. */
  maxRemaining(start: IsoDate): Cents | null {
    if (this.plan.annual_max_cents === null) return null;
    return Math.max(0, this.plan.annual_max_cents - this.year(start).maxUsed);
  }

  useMax(start: IsoDate, amount: Cents): void {
    this.year(start).maxUsed += amount;
  }

  addUse(use: EnginePriorProcedure): void {
    this.uses.push(use);
  }
}
