"""The course's graders, selftests, bug zoo and tools. Never imported by `framework`."""
