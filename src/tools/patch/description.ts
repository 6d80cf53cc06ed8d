/** What the model reads of `apply_patch`: the format, an example, and what to mind. */
export const DESCRIPTION = `Changes files with a patch: adds, updates, moves and deletes any number of files in one call, all or none.

The patch starts with "*** Begin Patch" and ends with "*** End Patch". Between them, each file has a section that starts with one of three headers:
*** Add File: <path>     a new file; every following line is its content, prefixed with +
*** Delete File: <path>  removes the file; nothing follows
*** Update File: <path>  changes the file; a "*** Move to: <new path>" line right after it also renames it

An update holds one or more chunks. A chunk starts with "@@", optionally followed by a line of the file that comes before the change (a function or class header) to say where it is. Its lines then start with " " (a space) for an unchanged line, "-" for a line to remove, "+" for a line to add. Give about three unchanged lines before and after each change, so that it is found in one place. End a chunk that changes the end of the file with "*** End of File".

Example:
*** Begin Patch
*** Add File: hello.txt
+Hello world
*** Update File: src/app.py
*** Move to: src/main.py
@@ def greet():
-    print("Hi")
+    print("Hello, world!")
*** Delete File: obsolete.txt
*** End Patch

- Paths are relative to the working directory, or absolute.
- Prefix every new line with +, in an added file too.
- If any chunk does not match its file, no file is changed: read the file again and send the whole patch anew.
- Each file keeps its line endings and byte-order mark.`
