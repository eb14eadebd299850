"""The rules engines: Next Station (London, Paris) and Metro. They know no bot, web or CLI."""
