-- Migration 2024_06_03_accounts_email
--
-- Database: MySQL 8.0, InnoDB, table `accounts` (22 million rows). Sign-up has allowed the
-- same address with different capitalisation (`Ada@x.io`, `ada@x.io`) since 2019; support
-- merged some of those by hand, but not all. This migration makes email the login key.
-- Run with the online schema change tool's defaults during business hours.

-- 1. Normalise stored addresses.
UPDATE accounts SET email = LOWER(TRIM(email));

-- 2. One account per address from now on.
ALTER TABLE accounts ADD UNIQUE INDEX accounts_email_uq (email);

-- 3. Addresses longer than 64 characters are almost always junk.
ALTER TABLE accounts MODIFY COLUMN email VARCHAR(64) NOT NULL;

-- 4. Record when each address was last verified.
ALTER TABLE accounts ADD COLUMN email_verified_at DATETIME NULL;

-- 5. Existing accounts were verified at sign-up.
UPDATE accounts SET email_verified_at = created_at;

-- 6. The login service looks accounts up by `login_email`.
ALTER TABLE accounts RENAME COLUMN email TO login_email;
