"""The last stage: the tidied function -> text, and the index of what was generated.

    printing   print generated functions with their comments, and prove the printing
               (the printed text parses back to the same tree)
    index      a new process finds what an earlier one generated, without transforming again

Imports: any earlier stage and the shared helpers.
"""
