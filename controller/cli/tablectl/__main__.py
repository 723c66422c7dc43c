import sys

from controller.cli.tablectl import main

sys.exit(main())
