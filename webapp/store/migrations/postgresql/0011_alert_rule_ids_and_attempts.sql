-- Migration 11 on PostgreSQL (issue 15), as SQLite's: rule ids are an identity already (never reused); when a
-- rule's failures began, so it pauses after an hour of them; each delivery attempt's own outcome; messages and
-- log rows of deleted rules go, so nothing of a deleted rule can be redelivered.
ALTER TABLE alert_rules ADD COLUMN IF NOT EXISTS failing_since TEXT;
DELETE FROM alert_outbox WHERE NOT EXISTS (SELECT 1 FROM alert_rules r WHERE r.id = alert_outbox.rule_id
                                           AND r.created_at <= alert_outbox.created_at);
DELETE FROM alert_deliveries WHERE NOT EXISTS (SELECT 1 FROM alert_outbox o WHERE o.id = alert_deliveries.message_id);
DELETE FROM alert_sent WHERE NOT EXISTS (SELECT 1 FROM alert_rules r WHERE r.id = alert_sent.rule_id
                                         AND r.created_at <= alert_sent.at);
ALTER TABLE alert_deliveries ADD COLUMN IF NOT EXISTS state TEXT;
UPDATE alert_deliveries SET state = CASE WHEN status_code BETWEEN 200 AND 299 THEN 'delivered' ELSE 'failed' END;
