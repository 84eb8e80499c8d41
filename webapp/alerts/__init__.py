"""Alerts: rules that watch problems and rejected events, and their messages.

The signed messages sent to webhooks and Slack.

Pure logic lives here (rules, messages, URL checks, the storms policy); the pipeline applies it to
what a change calls for (webapp/pipeline/telling.py), the outbox and delivery log are the store's
(webapp/store/alerts.py) and the background sender is webapp/ops/sender.py.
"""

from .rules import EVENT_TYPES, FORMATS, RuleError, matches, new_secret, parse_rule

__all__ = ["EVENT_TYPES", "FORMATS", "RuleError", "matches", "new_secret", "parse_rule"]
