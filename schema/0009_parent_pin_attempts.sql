-- Online checks of a member's parent PIN (PROTOCOL §11): the wrong ones of the last 15 minutes,
-- the ones under way (admitted, their PBKDF2 running), and until when checks are refused after
-- the fifth wrong one. The PIN's hash lives in the member's
-- `parent-pin` record; nothing here can give the PIN back.
CREATE TABLE parent_pin_attempts (
    family_id uuid NOT NULL,
    member_id uuid NOT NULL,
    failures timestamptz[] NOT NULL DEFAULT '{}',
    pending timestamptz[] NOT NULL DEFAULT '{}',
    locked_until timestamptz,
    PRIMARY KEY (family_id, member_id),
    FOREIGN KEY (family_id, member_id) REFERENCES members (family_id, member_id) ON DELETE CASCADE
);
