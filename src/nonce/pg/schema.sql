-- veilkit nonce state in PostgreSQL (docs/NONCES.md, "State in PostgreSQL").
-- Run by veilkit under a transaction-scoped advisory lock when the table is missing.
CREATE TABLE IF NOT EXISTS veilkit_nonce_state (
    machine integer NOT NULL CHECK (machine BETWEEN 0 AND 511),
    width integer NOT NULL CHECK (width IN (64, 96, 128)),
    highest numeric(39, 0) CHECK (highest >= 0),
    at_ts bigint NOT NULL DEFAULT 0 CHECK (at_ts >= 0),
    PRIMARY KEY (machine, width)
);

-- The highest reserved value only grows, except when veilkit gives back the unused end
-- of its own reservation (it sets veilkit.release for that transaction); rows are never
-- deleted. An edit by hand that would bring back issued values is an error.
CREATE OR REPLACE FUNCTION veilkit_nonce_state_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'UPDATE' THEN
        RAISE EXCEPTION 'veilkit_nonce_state: rows are never deleted (nonces reserved in them would be issued again)';
    END IF;
    IF NEW.machine <> OLD.machine OR NEW.width <> OLD.width THEN
        RAISE EXCEPTION 'veilkit_nonce_state: a row''s machine id and width never change';
    END IF;
    IF OLD.highest IS NOT NULL AND (NEW.highest IS NULL OR NEW.highest < OLD.highest)
       AND coalesce(current_setting('veilkit.release', true), '') <> 'on' THEN
        RAISE EXCEPTION 'veilkit_nonce_state: the highest reserved %-bit value of machine % only grows (% to %): nonces issued up to it would be issued again',
            OLD.width, OLD.machine, OLD.highest, NEW.highest;
    END IF;
    RETURN NEW;
END
$$;

DROP TRIGGER IF EXISTS veilkit_nonce_state_guard ON veilkit_nonce_state;
CREATE TRIGGER veilkit_nonce_state_guard
    BEFORE UPDATE OR DELETE ON veilkit_nonce_state
    FOR EACH ROW EXECUTE FUNCTION veilkit_nonce_state_guard();
DROP TRIGGER IF EXISTS veilkit_nonce_state_no_truncate ON veilkit_nonce_state;
CREATE TRIGGER veilkit_nonce_state_no_truncate
    BEFORE TRUNCATE ON veilkit_nonce_state
    FOR EACH STATEMENT EXECUTE FUNCTION veilkit_nonce_state_guard();
