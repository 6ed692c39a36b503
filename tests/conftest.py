"""Shared test configuration."""

import os

from hypothesis import settings

# Property tests: no per-example deadline (a random game may be long); CI runs are
# reproducible (derandomize) so a red build can be re-run locally with CI=true.
settings.register_profile("default", deadline=None)
settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True)
settings.load_profile(
    os.environ.get("HYPOTHESIS_PROFILE")
    or ("ci" if os.environ.get("CI", "").lower() in ("1", "true", "yes") else "default"))
