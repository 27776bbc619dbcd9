-- Migration 0157: invoice due dates (expand step)
--
-- Database: PostgreSQL 15. `invoices` has 38 million rows and about 300 writes a second.
-- The running application (v63) does not know the new column; v64 writes it for new
-- invoices, and a separate backfill job fills older rows in batches of 10,000 with a pause
-- between batches. A later migration (0159) adds NOT NULL once the backfill has finished and
-- a check of `SELECT count(*) FROM invoices WHERE due_on IS NULL` returns 0.
--
-- This file runs outside a transaction (the migration tool's `-- no-transaction` mode),
-- because CREATE INDEX CONCURRENTLY cannot run inside one.
-- no-transaction

-- Fail fast instead of queueing behind a long-running query and blocking writers.
SET lock_timeout = '5s';

-- 1. Nullable, no default: a metadata-only change in PostgreSQL 11 and later.
ALTER TABLE invoices ADD COLUMN IF NOT EXISTS due_on date;

-- 2. The constraint is added NOT VALID (no table scan, brief lock) and validated separately
--    (a scan that does not block writes).
ALTER TABLE invoices
    ADD CONSTRAINT invoices_due_on_after_issue
    CHECK (due_on IS NULL OR due_on >= issued_on) NOT VALID;
ALTER TABLE invoices VALIDATE CONSTRAINT invoices_due_on_after_issue;

-- 3. The overdue-invoices report filters on due_on for unpaid invoices only. A concurrent
--    build waits for running transactions, so it gets no lock timeout; and no IF NOT EXISTS,
--    because a failed earlier build leaves an INVALID index that must be dropped, not kept.
RESET lock_timeout;
CREATE INDEX CONCURRENTLY invoices_unpaid_due_on_idx
    ON invoices (due_on)
    WHERE paid_at IS NULL;

-- Rollback (run by hand if v64 is rolled back):
--   DROP INDEX CONCURRENTLY IF EXISTS invoices_unpaid_due_on_idx;
--   ALTER TABLE invoices DROP CONSTRAINT IF EXISTS invoices_due_on_after_issue;
--   ALTER TABLE invoices DROP COLUMN IF EXISTS due_on;
