-- Placeholder so migration 11 has no gap on this branch: htimes' 0010_fixed_width_times takes this number.
-- Delete this file when htimes' migration 10 is merged.
SELECT 1;
