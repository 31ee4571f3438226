"""Static files storage for production: hashed, compressed names (WhiteNoise) that also
rewrite the imports inside ES modules, so after a deploy a browser never mixes old and new
modules (the page loads hashed names all the way down)."""

from whitenoise.storage import CompressedManifestStaticFilesStorage


class HashedStaticFilesStorage(CompressedManifestStaticFilesStorage):
    support_js_module_import_aggregation = True
