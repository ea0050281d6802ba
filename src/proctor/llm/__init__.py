"""proctor's own model roles (``fast``, ``workhorse``, ``judge``): providers, keys, retries."""
