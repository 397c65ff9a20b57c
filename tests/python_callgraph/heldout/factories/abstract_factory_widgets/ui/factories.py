from abc import ABC, abstractmethod

from .widgets import HtmlButton, HtmlInput, TextButton, TextInput


class WidgetFactory(ABC):
    @abstractmethod
    def button(self, label):
        ...

    @abstractmethod
    def text_input(self, label):
        ...

    def form(self, fields):
        widgets = [self.text_input(name) for name in fields]
        widgets.append(self.button("Submit"))
        return widgets


class HtmlFactory(WidgetFactory):
    def button(self, label):
        return HtmlButton(label)

    def text_input(self, label):
        return HtmlInput(label)


class TextFactory(WidgetFactory):
    def button(self, label):
        return TextButton(label.upper())

    def text_input(self, label):
        return TextInput(label, width=5)


FACTORIES = {"html": HtmlFactory, "text": TextFactory}


def factory_for(kind):
    return FACTORIES[kind]()
