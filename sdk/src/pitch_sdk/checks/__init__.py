"""Compliance checks of a bot before it meets others (``pitch-bot check``): the checks themselves
(``compliance``) and the relay that checks a bot process in any language (``relay``)."""
