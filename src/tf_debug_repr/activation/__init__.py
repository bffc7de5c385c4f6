"""What happens when debugpy loads the plugin (``startup``): post-import hooks
(``import_hooks``), so nothing is done before the program imports TensorFlow; the
composition root that installs the catalog, the additions and the host's hooks."""
