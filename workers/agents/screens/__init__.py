"""Screen readers, one module per agent kind (each an `Adapter` subclass), and the
question patterns they share (`questions`)."""
