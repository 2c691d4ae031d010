uop dst=D src=S wgt=W
