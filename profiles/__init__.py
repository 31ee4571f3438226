"""A player's profile: the rounds this device played (kept in the browser) and, for whoever
makes an account, the same rounds kept on the server to carry to another device."""
