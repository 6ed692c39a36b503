"""Author accounts on the web: sign-up, login and the account page (:mod:`.pages`), the JSON
API the SDK's ``pitch-bot`` commands call (:mod:`.api`), and who is asking (:mod:`.identity`)."""
