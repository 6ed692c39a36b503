"""Every new version of a bot tested against its predecessor by itself: an automatic SPRT
per version, a bounded number running per author."""
